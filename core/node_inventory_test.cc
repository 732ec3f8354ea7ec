// The node inventory (nodes.toml) and a node's identity file.
#include <doctest/doctest.h>

#include <string>

#include "node_inventory.h"
#include "support/diagnostics_expect.h"

using namespace railyard;
using namespace railyard::test;

namespace {

struct Loaded {
  Diagnostics diags;
  std::optional<LoadedInventory> inv;
};

// Inventory `text` as nodes.toml, loaded then validated (against `recipe` when given), as
// `railyard check` does.
Loaded load(const std::string& text, const Recipe* recipe = nullptr) {
  MemorySource files;
  Loaded out;
  auto table = toml::parse(text, std::string("nodes.toml"));
  out.inv = load_node_inventory(files, "nodes.toml", table, out.diags);
  if (out.inv) validate_inventory(*out.inv, recipe, out.diags);
  return out;
}

// A recipe with one subnet per rail.
Recipe per_rail(std::vector<std::string> subnets, int rail_count = 0) {
  Recipe r;
  r.name = "sku";
  r.addressing.subnets = std::move(subnets);
  r.hardware.rail_count = rail_count;
  return r;
}

// A recipe whose rails share one subnet.
Recipe shared(std::string subnet, int rail_count) {
  Recipe r;
  r.name = "sku";
  r.addressing.mode = AddressingMode::shared_subnet;
  r.addressing.subnet = std::move(subnet);
  r.hardware.rail_count = rail_count;
  return r;
}

// One [[node]] (4 lines) with the given values.
std::string node(const std::string& hostname, const std::string& mac, const std::string& rails) {
  return "[[node]]\nhostname = \"" + hostname + "\"\nmac = \"" + mac + "\"\nrails = [" + rails + "]\n";
}

}  // namespace

TEST_CASE("a valid inventory; MACs are normalised") {
  auto r =
      load(node("n1", "0C-42-A1-00-00-01", "\"198.18.0.11\"") + node("n2", "0c:42:a1:00:00:02", "\"198.18.0.12\""));
  CHECK(all(r.diags) == "");
  REQUIRE(r.inv);
  CHECK(r.inv->complete);
  REQUIRE(r.inv->inventory.nodes.size() == 2);
  CHECK(r.inv->inventory.nodes[0].mac == "0c:42:a1:00:00:01");
  CHECK(r.inv->inventory.nodes[1].rails == std::vector<std::string>{"198.18.0.12"});
}

TEST_CASE("duplicate host name") {
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "") + node("n1", "0c:42:a1:00:00:02", "")).diags,
            "node[1].hostname: host name 'n1' is already used by node[0].hostname") == "nodes.toml:6:12");
}

// Host names compare without case, as DNS (RFC 4343) and DHCP do.
TEST_CASE("host names differing only in case are duplicates") {
  CHECK(one(load(node("gpu-01", "0c:42:a1:00:00:01", "") + node("GPU-01", "0c:42:a1:00:00:02", "")).diags,
            "node[1].hostname: host name") == "nodes.toml:6:12");
}

TEST_CASE("duplicate MAC, even written in another case or with dashes") {
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "") + node("n2", "0C-42-A1-00-00-01", "")).diags,
            "node[1].mac: MAC address '0c:42:a1:00:00:01' is already used by node[0].mac") == "nodes.toml:7:7");
}

TEST_CASE("duplicate rail address, even with another prefix") {
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11/24\"") +
                 node("n2", "0c:42:a1:00:00:02", "\"198.18.0.11\""))
                .diags,
            "node[1].rails[0]: address '198.18.0.11' is already used by node[0].rails[0]") == "nodes.toml:8:10");
}

TEST_CASE("bad host name and MAC are rejected at their values") {
  CHECK(one(load(node("gpu_01", "0c:42:a1:00:00:01", "")).diags, "node[0].hostname: host name 'gpu_01' contains '_'") ==
        "nodes.toml:2:12");
  CHECK(one(load(node("n1", "01:00:5e:00:00:01", "")).diags,
            "node[0].mac: '01:00:5e:00:00:01' is a multicast MAC address") == "nodes.toml:3:7");
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.300\"")).diags,
            "node[0].rails: element 0: '198.18.0.300' is not an IPv4 address") == "nodes.toml:4:10");
}

// lldp_system names the leaf's files and lldp_port is a word of its FRR configuration: '!' and
// '#' start comments there, and a shell metacharacter has no business in either.
TEST_CASE("lldp_system and lldp_port: the host-name rule, with {rail} and {unit}") {
  const std::string n1 = node("n1", "0c:42:a1:00:00:01", "");
  auto ok = load(n1 + "lldp_system = \"leaf-r{rail}.pod1\"\nlldp_port = \"Ethernet{rail}\"\n");
  CHECK(all(ok.diags) == "");
  for (const char* bad : {"!leaf", "leaf#{rail}", "leaf;reboot", "leaf$(reboot)", "leaf`id`", "le af", "leaf/{rail}",
                          "leaf|x", "leaf&", "leaf>x", "leaf*", "leaf_0"}) {
    CAPTURE(bad);
    CHECK(one(load(n1 + "lldp_system = '" + bad + "'\n").diags,
              "node[0].lldp_system: '" + std::string(bad).substr(0, 2)) == "nodes.toml:5:15");
    CHECK(one(load(n1 + "lldp_port = '" + bad + "'\n").diags,
              "; allowed are letters, digits, '-' and '.' (the host-name "
              "rule, with {rail} for the rail index and {unit} for the unit)") == "nodes.toml:5:13");
  }
  CHECK(one(load(n1 + "lldp_port = \"swp1;reboot\"\n").diags,
            "node[0].lldp_port: 'swp1;reboot' contains ';'; allowed are letters, digits, '-' and '.' (the host-name "
            "rule, with {rail} for the rail index and {unit} for the unit)") == "nodes.toml:5:13");
  CHECK(one(load(n1 + "lldp_port = \"-swp{rail}\"\n").diags,
            "node[0].lldp_port: '-swp{rail}' has a label starting or ending with '-' (the host-name rule") ==
        "nodes.toml:5:13");
  CHECK(one(load(n1 + "lldp_system = \".leaf\"\n").diags, "node[0].lldp_system: '.leaf' has an empty") ==
        "nodes.toml:5:15");
  CHECK(one(load(n1 + "lldp_system = \"leaf-{node}\"\n").diags,
            "node[0].lldp_system: 'leaf-{node}': the only placeholders are {rail} and {unit}") == "nodes.toml:5:15");
  CHECK(one(load(n1 + "lldp_system = \"" + std::string(65, 'a') + "\"\n").diags, "is longer than 64 characters") ==
        "nodes.toml:5:15");
}

TEST_CASE("a rejected value marks the inventory incomplete, the rest is still checked") {
  auto r = load(node("n1", "0c:42:a1:00:00:01", "") + node("n1", "zz", ""));
  REQUIRE(r.inv);
  CHECK_FALSE(r.inv->complete);
  CHECK(r.diags.size() == 2);  // the bad MAC and the duplicate host name
}

TEST_CASE("hostname and mac are required") {
  auto r = load("[[node]]\nrails = []\n");
  CHECK(r.diags.size() == 2);
  for (const auto& d : r.diags.items()) CHECK(where(d) == "nodes.toml:1:1");
  CHECK(r.diags.items()[0].message.find("missing required key 'node[0].hostname'") == 0);
  CHECK(r.diags.items()[1].message.find("missing required key 'node[0].mac'") == 0);
}

// A required key set to "" is an error: a node needs a host name and a MAC.
TEST_CASE("an empty host name or MAC is rejected") {
  auto r = load(node("", "", ""));
  CHECK(r.diags.size() == 2);
}

TEST_CASE("unknown key in a node") {
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "") + "addr = \"x\"\n").diags,
            "unknown key 'node[0].addr'; allowed here: hostname, mac, rails, lldp_system, lldp_port") ==
        "nodes.toml:5:1");
}

// --- against the SKU's recipe ---

TEST_CASE("every node has one address per rail") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\""), &r).diags,
            "node[0].rails: n1 has 1 rail addresses; recipe 'sku' has 2 rails") == "nodes.toml:4:9");
  CHECK(all(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.1.11\""), &r).diags) == "");
  Recipe fixed = per_rail({"198.18.0.0/24", "198.18.1.0/24"}, 2);
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.1.11\", \"198.18.2.11\""), &fixed).diags,
            "n1 has 3 rail addresses; recipe 'sku' has 2 rails") == "nodes.toml:4:9");
}

TEST_CASE("an address outside its rail's subnet") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.9.11\""), &r).diags,
            "node[0].rails[1]: 198.18.9.11 is outside rail 1's subnet 198.18.1.0/24") == "nodes.toml:4:25");
  // In the other rail's subnet is still wrong: rails are in order.
  auto swapped = load(node("n1", "0c:42:a1:00:00:01", "\"198.18.1.11\", \"198.18.0.11\""), &r).diags;
  CHECK(swapped.size() == 2);
}

TEST_CASE("an address with a prefix other than its subnet's") {
  Recipe r = per_rail({"198.18.0.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11/16\""), &r).diags,
            "node[0].rails[0]: prefix /16 differs from rail 0's subnet 198.18.0.0/24") == "nodes.toml:4:10");
  CHECK(all(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11/24\""), &r).diags) == "");
}

TEST_CASE("the network or broadcast address of the subnet") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  auto d = load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.0\", \"198.18.1.255\""), &r).diags;
  REQUIRE(d.size() == 2);
  CHECK(where(d.items()[0]) == "nodes.toml:4:10");
  CHECK(d.items()[0].message == "node[0].rails[0]: 198.18.0.0 is the network or broadcast address of 198.18.0.0/24");
  CHECK(where(d.items()[1]) == "nodes.toml:4:24");
  CHECK(d.items()[1].message == "node[0].rails[1]: 198.18.1.255 is the network or broadcast address of 198.18.1.0/24");
  // A /31 has no network or broadcast address: both are hosts.
  Recipe p2p = per_rail({"198.18.0.0/31"});
  CHECK(all(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.0\"") + node("n2", "0c:42:a1:00:00:02", "\"198.18.0.1\""),
                 &p2p)
                .diags) == "");
}

TEST_CASE("shared-subnet: every rail address is in the one subnet") {
  Recipe r = shared("198.18.0.0/22", 2);
  CHECK(all(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.1.11\""), &r).diags) == "");
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.4.11\""), &r).diags,
            "node[0].rails[1]: 198.18.4.11 is outside the shared rail subnet 198.18.0.0/22") == "nodes.toml:4:25");
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11/24\", \"198.18.1.11\""), &r).diags,
            "prefix /24 differs from the shared rail subnet 198.18.0.0/22") == "nodes.toml:4:10");
  // Shared subnet without a rail count: any number of addresses.
  Recipe open = shared("198.18.0.0/22", 0);
  CHECK(all(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\""), &open).diags) == "");
}

// A rejected value is reported once: no rail-count or duplicate errors follow from it.
TEST_CASE("a rejected value produces no cascade of inventory errors") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.1.300\""), &r).diags,
            "node[0].rails: element 1:") == "nodes.toml:4:25");
  CHECK(load(node("n1", "zz", "") + node("n2", "yy", "")).diags.size() == 2);
}

// --- a node's identity file ---

TEST_CASE("parse_node_identity reads one node") {
  MemorySource files;
  files.add("node.toml", "hostname = \"n1\"\nmac = \"0C:42:A1:00:00:01\"\nrails = [\"198.18.0.11/24\"]\n");
  Diagnostics d;
  auto n = parse_node_identity(files, "node.toml", nullptr, d);
  CHECK(all(d) == "");
  REQUIRE(n);
  CHECK(n->hostname == "n1");
  CHECK(n->mac == "0c:42:a1:00:00:01");
  CHECK(n->rails == std::vector<std::string>{"198.18.0.11/24"});
}

TEST_CASE("parse_node_identity reports bad, missing and unknown keys") {
  MemorySource files;
  files.add("node.toml", "hostname = \"n1\"\nmack = \"0c:42:a1:00:00:01\"\n");
  Diagnostics d;
  CHECK_FALSE(parse_node_identity(files, "node.toml", nullptr, d));
  REQUIRE(d.size() == 2);
  CHECK(where(d.items()[0]) == "node.toml:2:1");
  CHECK(d.items()[0].message == "unknown key 'mack'; did you mean 'mac'?");
  CHECK(where(d.items()[1]) == "node.toml:1:1");
  CHECK(d.items()[1].message.find("missing required key 'mac'") == 0);

  files.add("bad.toml", "hostname = \"-n1\"\nmac = \"0c:42:a1:00:00:01\"\n");
  Diagnostics d2;
  CHECK_FALSE(parse_node_identity(files, "bad.toml", nullptr, d2));
  CHECK(one(d2, "hostname: host name '-n1' has a label starting or ending with '-'") == "bad.toml:1:12");
}

TEST_CASE("parse_node_identity: missing file and syntax error") {
  MemorySource files;
  Diagnostics d;
  CHECK_FALSE(parse_node_identity(files, "node.toml", nullptr, d));
  CHECK(one(d, "cannot read file: No such file or directory") == "node.toml:0:0");
  files.add("node.toml", "hostname = \n");
  Diagnostics d2;
  CHECK_FALSE(parse_node_identity(files, "node.toml", nullptr, d2));
  CHECK(one(d2, "TOML syntax:") == "node.toml:1:12");
}

TEST_CASE("parse_node_identity: the inventory's rules, against the node's recipe (one validator for both programs)") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24", "198.18.3.0/24"}, 4);
  auto identity = [&](const std::string& rails) {
    MemorySource files;
    files.add("node.toml", "hostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\nrails = [" + rails + "]\n");
    Diagnostics d;
    auto n = parse_node_identity(files, "node.toml", &r, d);
    CHECK(n.has_value() == d.empty());
    return d;
  };
  CHECK(all(identity(R"("198.18.0.11", "198.18.1.11", "198.18.2.11", "198.18.3.11")")) == "");
  CHECK(one(identity(R"("198.18.9.11/8", "198.18.1.11", "198.18.2.11", "198.18.3.11")"),
            "rails[0]: 198.18.9.11 is outside rail 0's subnet 198.18.0.0/24") == "node.toml:3:10");
  CHECK(one(identity(R"("0.0.0.0", "198.18.1.11", "198.18.2.11", "198.18.3.11")"),
            "rails: element 0: '0.0.0.0' cannot be an interface address: the unspecified address") == "node.toml:3:10");
  CHECK(one(identity(R"("198.18.0.11", "255.255.255.255", "198.18.2.11", "198.18.3.11")"),
            "'255.255.255.255' cannot be an interface address: the limited broadcast address") == "node.toml:3:25");
  auto same = identity(R"("198.18.0.11", "198.18.0.11", "198.18.0.11", "198.18.0.11")");
  CHECK(at(same, "rails[1]: address '198.18.0.11' is already used by rails[0]") == "node.toml:3:25");
  CHECK(one(identity(R"("198.18.0.11")"), "rails: n1 has 1 rail addresses; recipe 'sku' has 4 rails") ==
        "node.toml:3:9");
  // Without a recipe, what needs none still holds.
  MemorySource files;
  files.add("node.toml",
            "hostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\nrails = [\"198.18.0.11\", \"198.18.0.11\"]\n");
  Diagnostics d;
  CHECK_FALSE(parse_node_identity(files, "node.toml", nullptr, d));
  CHECK(one(d, "rails[1]: address '198.18.0.11' is already used by rails[0]") == "node.toml:3:25");
}

// --- [fabric.probe]: references and probe peers ---

namespace {

// A node of assign_probe_peers' inventories: two rail addresses 198.18.{0,1}.`host`, written
// with their prefix as an inventory may.
NodeEntry probe_node(int host, bool reference = false) {
  NodeEntry n;
  n.hostname = "n" + std::to_string(host);
  n.rails = {"198.18.0." + std::to_string(host) + "/24", "198.18.1." + std::to_string(host)};
  n.reference = reference;
  return n;
}

std::vector<std::string> peers_at(int host) {
  return {"198.18.0." + std::to_string(host), "198.18.1." + std::to_string(host)};
}

}  // namespace

TEST_CASE("assign_probe_peers: nodes take two references in turn, node i reference i mod 2") {
  NodeInventory inv;
  inv.nodes = {probe_node(10, true), probe_node(11, true), probe_node(12), probe_node(13), probe_node(14)};
  assign_probe_peers(inv);
  CHECK(inv.nodes[2].probe_peers == peers_at(10));
  CHECK(inv.nodes[3].probe_peers == peers_at(11));
  CHECK(inv.nodes[4].probe_peers == peers_at(10));
}

// References booting together would wait on each other's responders: they probe nothing.
TEST_CASE("assign_probe_peers: a reference gets no peers, even beside another reference") {
  NodeInventory inv;
  inv.nodes = {probe_node(10), probe_node(11, true), probe_node(12), probe_node(13, true)};
  assign_probe_peers(inv);
  CHECK(inv.nodes[1].probe_peers.empty());
  CHECK(inv.nodes[3].probe_peers.empty());
  CHECK(inv.nodes[0].probe_peers == peers_at(11));
  CHECK(inv.nodes[2].probe_peers == peers_at(11));
}

TEST_CASE("assign_probe_peers: a lone reference gets no peers, the others probe it") {
  NodeInventory inv;
  inv.nodes = {probe_node(10), probe_node(11, true), probe_node(12)};
  assign_probe_peers(inv);
  CHECK(inv.nodes[1].probe_peers.empty());
  CHECK(inv.nodes[0].probe_peers == peers_at(11));
  CHECK(inv.nodes[2].probe_peers == peers_at(11));
}

TEST_CASE("assign_probe_peers: no reference, no peers") {
  NodeInventory inv;
  inv.nodes = {probe_node(10), probe_node(11)};
  assign_probe_peers(inv);
  CHECK(inv.nodes[0].probe_peers.empty());
  CHECK(inv.nodes[1].probe_peers.empty());
}

TEST_CASE("assign_probe_peers: a rail the reference has no address on gets \"\"") {
  NodeInventory inv;
  inv.nodes = {probe_node(10, true), probe_node(11)};
  inv.nodes[0].rails.pop_back();
  assign_probe_peers(inv);
  CHECK(inv.nodes[1].probe_peers == std::vector<std::string>{"198.18.0.10", ""});
}

TEST_CASE("load_node_inventory: references are read and assigned, probe_peers given are kept") {
  auto r = load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\"") + "reference = true\n" +
                node("n2", "0c:42:a1:00:00:02", "\"198.18.0.12\"") + "reference = true\n" +
                node("n3", "0c:42:a1:00:00:03", "\"198.18.0.13\"") + "probe_peers = [\"198.18.0.99\"]\n" +
                node("n4", "0c:42:a1:00:00:04", "\"198.18.0.14\""));
  CHECK(all(r.diags) == "");
  REQUIRE(r.inv);
  const auto& nodes = r.inv->inventory.nodes;
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[0].reference);
  CHECK_FALSE(nodes[2].reference);
  CHECK(nodes[0].probe_peers.empty());                                     // a reference
  CHECK(nodes[2].probe_peers == std::vector<std::string>{"198.18.0.99"});  // kept
  CHECK(nodes[3].probe_peers == std::vector<std::string>{"198.18.0.12"});  // 3 mod 2
}

TEST_CASE("probe_peers: one per rail") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11\", \"198.18.1.11\"") +
                     "probe_peers = [\"198.18.0.50\"]\n",
                 &r)
                .diags,
            "node[0].probe_peers: n1 has 1 probe peers for 2 rails: give one per rail, in rail order") ==
        "nodes.toml:5:15");
}

TEST_CASE("probe_peers: never the node's own rail address") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  CHECK(one(load(node("n1", "0c:42:a1:00:00:01", "\"198.18.0.11/24\", \"198.18.1.11\"") +
                     "probe_peers = [\"198.18.0.11\", \"198.18.1.50\"]\n",
                 &r)
                .diags,
            "node[0].probe_peers[0]: 198.18.0.11 is n1's own rail 0: a node never probes itself") == "nodes.toml:5:16");
}

TEST_CASE("parse_node_identity: probe_peers never the node's own rail address") {
  Recipe r = per_rail({"198.18.0.0/24", "198.18.1.0/24"});
  MemorySource files;
  files.add("node.toml",
            "hostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\nrails = [\"198.18.0.11\", \"198.18.1.11\"]\n"
            "probe_peers = [\"198.18.0.50\", \"198.18.1.11\"]\n");
  Diagnostics d;
  CHECK_FALSE(parse_node_identity(files, "node.toml", &r, d));
  CHECK(one(d, "probe_peers[1]: 198.18.1.11 is n1's own rail 1: a node never probes itself") == "node.toml:4:31");
}

// What railyard pxe writes for a node whose reference lacks an address on a rail
// (assign_probe_peers' ""): schema::Fields::strings refuses every empty element, so the
// node's own identity file does not load.
TEST_CASE("parse_node_identity: \"\" for a rail without a reference") {
  MemorySource files;
  files.add("node.toml",
            "hostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\nrails = [\"198.18.0.11\", \"198.18.1.11\"]\n"
            "probe_peers = [\"198.18.0.50\", \"\"]\n");
  Diagnostics d;
  auto n = parse_node_identity(files, "node.toml", nullptr, d);
  CHECK(all(d) == "");
  REQUIRE(n);
  CHECK(n->probe_peers == std::vector<std::string>{"198.18.0.50", ""});
}
