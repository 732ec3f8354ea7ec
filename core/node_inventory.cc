#include "node_inventory.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "net.h"
#include "recipe_loader.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

void node_fields(schema::Fields<NodeEntry>& f) {
  f.required_string(
       "hostname", &NodeEntry::hostname, "Host name of the node.",
       [](const std::string& v) { return check_hostname(v); }, "an RFC 1123 host name")
      .required_string(
          "mac", &NodeEntry::mac, "MAC address of its management NIC (PXE boots from it).",
          [](const std::string& v) { return check_mac(v); }, "a MAC address")
      .strings(
          "rails", &NodeEntry::rails, {}, "One IPv4 address per rail, in rail order.",
          [](const std::string& v) { return check_interface_address(v); }, "IPv4 addresses")
      .string("lldp_system", &NodeEntry::lldp_system, "",
              "The system name of this node's LLDP neighbour on each rail, with {rail} for the rail index; overrides "
              "the recipe's fabric.lldp.expect_system.",
              check_lldp_template, "a host name with {rail}")
      .string("lldp_port", &NodeEntry::lldp_port, "",
              "The port ID this node reaches on each rail's leaf (\"swp7\"), with {rail} for the rail index; "
              "overrides the recipe's fabric.lldp.expect_port.",
              check_lldp_template, "a host name with {rail}")
      .integer64(
          "asn", &NodeEntry::asn, 0, 0, 4294967294,
          "routing.mode = \"bgp-unnumbered\": the node's own AS number; 0 takes the recipe's "
          "routing.node_asn.",
          [](std::int64_t v) { return v == 0 ? std::nullopt : check_asn(v); }, "0, or an AS number")
      .string(
          "vtep", &NodeEntry::vtep, "",
          "[tenant]: the node's VXLAN tunnel endpoint, a /32 inside routing.fabric_prefixes that it announces over "
          "BGP on every rail.",
          [](const std::string& v) { return check_ipv4(v); }, "an IPv4 address")
      .string(
          "tenant_address", &NodeEntry::tenant_address, "",
          "[tenant]: the node's address on its tenant network, with its prefix (\"10.100.0.11/24\").",
          [](const std::string& v) { return check_interface_address(v); }, "an IPv4 address with prefix")
      .boolean("reference", &NodeEntry::reference, false,
               "[fabric.probe]: this node runs the peer-probe responder; the other nodes' rails write to it "
               "before they join.")
      .strings(
          "probe_peers", &NodeEntry::probe_peers, {},
          "[fabric.probe]: the reference each of this node's rails writes to, one address per rail (\"\" for "
          "none); railyard pxe fills it from the nodes with reference = true when it is not given.",
          [](const std::string& v) { return check_ipv4(v); }, "IPv4 addresses or \"\"", true);
}

schema::Schema<NodeInventory> make_node_inventory_schema() {
  schema::Schema<NodeInventory> s;
  s.top("The nodes of one SKU.")
      .integer("schema", &NodeInventory::schema, 1, 1, 1, "Inventory format version.")
      .string("recipe", &NodeInventory::recipe, "",
              "The SKU's recipe (relative to this file); with it rail counts and subnets are checked.");
  node_fields(s.array_section("node", &NodeInventory::nodes, "One table per node."));
  return s;
}

}  // namespace

const schema::Schema<NodeInventory>& node_inventory_schema() {
  static const schema::Schema<NodeInventory> s = make_node_inventory_schema();
  return s;
}

std::optional<LoadedInventory> load_node_inventory(const FileSource&, const std::string& path, const toml::table& table,
                                                   Diagnostics& diags) {
  LoadedInventory inv;
  inv.path = path;
  std::size_t before = diags.size();
  schema::ParseContext ctx{diags, inv.positions, path, &inv.failed};
  node_inventory_schema().parse(table, inv.inventory, ctx);
  for (auto& n : inv.inventory.nodes) n.mac = normalize_mac(n.mac).value_or(n.mac);
  inv.complete = diags.size() == before;
  if (inv.complete) assign_probe_peers(inv.inventory);
  return inv;
}

namespace {

using Locate = std::function<SourcePos(const std::string& key)>;

// Routed rails: each address a /32 (written bare or with /32) inside the recipe's fabric
// prefixes, and an AS number from the node or the recipe.
void validate_routed_rails(const NodeEntry& n, const std::string& key, const Locate& at,
                           const std::set<std::string>& failed, const Recipe& recipe, Diagnostics& diags) {
  auto sub = [&](const std::string& k) { return key.empty() ? k : key + "." + k; };
  int rails = fixed_rail_count(recipe);
  if (rails > 0 && static_cast<int>(n.rails.size()) != rails && !failed.count(sub("rails")) && !failed.count(key))
    diags.error(at(sub("rails")), sub("rails") + ": " + n.hostname + " has " + std::to_string(n.rails.size()) +
                                      " rail addresses; recipe '" + recipe.name + "' has " + std::to_string(rails) +
                                      " rails");
  const std::int64_t leaf = recipe.routing.leaf_asn;
  const int leaves = std::max(rails, 1);
  if (n.asn != 0 && leaf != 0 && n.asn >= leaf && n.asn < leaf + leaves)
    diags.error(at(sub("asn")), sub("asn") + ": " + std::to_string(n.asn) +
                                    " is a leaf's AS (routing.leaf_asn + rail): "
                                    "the sessions would be internal BGP, which the node refuses");
  if (n.asn == 0 && recipe.routing.node_asn == 0 && !failed.count(sub("asn")))
    diags.error(at(key.empty() ? "hostname" : key), (key.empty() ? std::string("node") : key) + ": " + n.hostname +
                                                        " has no asn and recipe '" + recipe.name +
                                                        "' no routing.node_asn: its BGP sessions need an AS number");
  std::vector<Cidr> nets;
  for (const auto& p : recipe.routing.fabric_prefixes)
    if (auto c = parse_cidr(p)) nets.push_back(*c);
  auto in_fabric = [&](Ipv4 a) {
    for (const auto& net : nets)
      if (net.contains(a)) return true;
    return nets.empty();
  };
  if (recipe.tenant.vni != 0) {
    std::string who = key.empty() ? std::string("node") : key;
    if (n.vtep.empty() && !failed.count(sub("vtep")))
      diags.error(at(key.empty() ? "hostname" : key), who + ": " + n.hostname + " has no vtep, and recipe '" +
                                                          recipe.name + "' has a tenant network (tenant.vni " +
                                                          std::to_string(recipe.tenant.vni) + ")");
    else if (auto v = parse_ipv4(n.vtep); v && !in_fabric(*v))
      diags.error(at(sub("vtep")), sub("vtep") + ": " + n.vtep +
                                       " is outside routing.fabric_prefixes: the leaves would not "
                                       "carry it");
    if (n.tenant_address.empty() && !failed.count(sub("tenant_address")))
      diags.error(at(key.empty() ? "hostname" : key), who + ": " + n.hostname + " has no tenant_address, and recipe '" +
                                                          recipe.name + "' has a tenant network");
    else if (auto t = parse_interface_address(n.tenant_address); t && in_fabric(t->address) && !nets.empty())
      diags.error(at(sub("tenant_address")),
                  sub("tenant_address") + ": " + n.tenant_address +
                      " is inside routing.fabric_prefixes: tenant addresses live only in the "
                      "VXLAN segment");
  }
  for (std::size_t r = 0; r < n.rails.size(); ++r) {
    auto a = parse_interface_address(n.rails[r]);
    if (!a) continue;
    std::string rkey = sub("rails[" + std::to_string(r) + "]");
    if (n.rails[r].find('/') != std::string::npos && a->prefix != 32) {
      diags.error(at(rkey), rkey + ": prefix /" + std::to_string(a->prefix) +
                                " on a routed rail; its address is a /32 (write it bare or with /32)");
      continue;
    }
    bool inside = false;
    for (const auto& net : nets) inside = inside || net.contains(a->address);
    if (!nets.empty() && !inside)
      diags.error(at(rkey), rkey + ": " + a->address.str() + " is outside routing.fabric_prefixes (" +
                                join(recipe.routing.fabric_prefixes, ", ") + ")");
  }
}

// One node against the SKU's recipe: as many rail addresses as the recipe has rails, each
// inside its rail's subnet, with that subnet's prefix, and neither its network nor its
// broadcast address. `key` is "node[3]" in an inventory, "" for a node's own identity.
void validate_node_rails(const NodeEntry& n, const std::string& key, const Locate& at,
                         const std::set<std::string>& failed, const Recipe& recipe, Diagnostics& diags) {
  auto sub = [&](const std::string& k) { return key.empty() ? k : key + "." + k; };
  if (!n.probe_peers.empty() && n.probe_peers.size() != n.rails.size() && !failed.count(sub("probe_peers")))
    diags.error(at(sub("probe_peers")), sub("probe_peers") + ": " + n.hostname + " has " +
                                            std::to_string(n.probe_peers.size()) + " probe peers for " +
                                            std::to_string(n.rails.size()) +
                                            " rails: give one per rail, in rail order (\"\" for none)");
  for (std::size_t r = 0; r < n.probe_peers.size() && r < n.rails.size(); ++r) {
    auto own = parse_interface_address(n.rails[r]);
    if (own && own->address.str() == n.probe_peers[r])
      diags.error(at(sub("probe_peers[" + std::to_string(r) + "]")),
                  sub("probe_peers[" + std::to_string(r) + "]") + ": " + n.probe_peers[r] + " is " + n.hostname +
                      "'s own rail " + std::to_string(r) + ": a node never probes itself");
  }
  if (recipe.routing.mode == RoutingMode::bgp_unnumbered) {
    validate_routed_rails(n, key, at, failed, recipe, diags);
    return;
  }
  const auto& ad = recipe.addressing;
  int rails = fixed_rail_count(recipe);
  if (rails == 0 && ad.mode == AddressingMode::per_rail_subnet) rails = static_cast<int>(ad.subnets.size());
  if (rails > 0 && static_cast<int>(n.rails.size()) != rails && !failed.count(sub("rails")) && !failed.count(key))
    diags.error(at(sub("rails")), sub("rails") + ": " + n.hostname + " has " + std::to_string(n.rails.size()) +
                                      " rail addresses; recipe '" + recipe.name + "' has " + std::to_string(rails) +
                                      " rails");
  for (std::size_t r = 0; r < n.rails.size(); ++r) {
    auto a = parse_interface_address(n.rails[r]);
    if (!a) continue;
    std::string rkey = sub("rails[" + std::to_string(r) + "]");
    std::string net_text =
        ad.mode == AddressingMode::shared_subnet ? ad.subnet : (r < ad.subnets.size() ? ad.subnets[r] : std::string());
    auto net = parse_cidr(net_text);
    if (!net) continue;
    std::string which =
        ad.mode == AddressingMode::shared_subnet ? "the shared rail subnet" : "rail " + std::to_string(r) + "'s subnet";
    if (!net->contains(a->address)) {
      diags.error(at(rkey), rkey + ": " + a->address.str() + " is outside " + which + " " + net->str());
      continue;
    }
    if (n.rails[r].find('/') != std::string::npos && a->prefix != net->prefix)
      diags.error(at(rkey),
                  rkey + ": prefix /" + std::to_string(a->prefix) + " differs from " + which + " " + net->str());
    if (net->prefix <= 30 && (a->address == net->first() || a->address == net->last()))
      diags.error(at(rkey), rkey + ": " + a->address.str() + " is the network or broadcast address of " + net->str());
  }
}

Locate locator(const schema::Positions& positions, const std::string& path) {
  return [&positions, path](const std::string& key) {
    auto it = positions.find(key);
    return it != positions.end() ? it->second : SourcePos{path, 1, 1};
  };
}

}  // namespace

void validate_inventory(const LoadedInventory& inv, const Recipe* recipe, Diagnostics& diags) {
  Locate at = locator(inv.positions, inv.path);
  std::map<std::string, std::string> hostnames, macs, addresses;  // value → first key
  auto unique = [&](std::map<std::string, std::string>& seen, const std::string& value, const std::string& key,
                    const std::string& what) {
    if (value.empty() || inv.failed.count(key)) return;  // rejected already; not a duplicate
    auto [it, fresh] = seen.emplace(value, key);
    if (!fresh) diags.error(at(key), key + ": " + what + " '" + value + "' is already used by " + it->second);
  };
  const auto& nodes = inv.inventory.nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::string key = "node[" + std::to_string(i) + "]";
    // Host names compare without case, as DNS and DHCP do (RFC 4343).
    std::string host = nodes[i].hostname;
    for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    unique(hostnames, host, key + ".hostname", "host name");
    unique(macs, nodes[i].mac, key + ".mac", "MAC address");
    for (std::size_t r = 0; r < nodes[i].rails.size(); ++r) {
      auto a = parse_interface_address(nodes[i].rails[r]);
      if (a) unique(addresses, a->address.str(), key + ".rails[" + std::to_string(r) + "]", "address");
    }
  }
  if (!recipe) return;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    validate_node_rails(nodes[i], "node[" + std::to_string(i) + "]", at, inv.failed, *recipe, diags);
}

void assign_probe_peers(NodeInventory& inv) {
  std::vector<std::size_t> refs;
  for (std::size_t i = 0; i < inv.nodes.size(); ++i)
    if (inv.nodes[i].reference) refs.push_back(i);
  for (std::size_t i = 0; i < inv.nodes.size(); ++i) {
    NodeEntry& n = inv.nodes[i];
    // A reference is proven by the nodes that probe it; references booting together would
    // otherwise wait on each other's responders, which start once their first boot passed.
    if (!n.probe_peers.empty() || n.reference) continue;
    if (refs.empty()) continue;
    const NodeEntry& ref = inv.nodes[refs[i % refs.size()]];
    n.probe_peers.assign(n.rails.size(), "");
    for (std::size_t r = 0; r < n.rails.size() && r < ref.rails.size(); ++r)
      if (auto a = parse_interface_address(ref.rails[r])) n.probe_peers[r] = a->address.str();
  }
}

std::optional<NodeEntry> parse_node_identity(const FileSource& files, const std::string& path, const Recipe* recipe,
                                             Diagnostics& diags) {
  auto table = read_toml(files, path, diags);
  if (!table) return std::nullopt;
  schema::Fields<NodeEntry> fields;
  node_fields(fields);
  NodeEntry node;
  schema::Positions positions;
  std::set<std::string> failed;
  schema::ParseContext ctx{diags, positions, path, &failed};
  std::size_t before = diags.size();
  fields.parse(&*table, node, "", {path, 1, 1}, ctx);
  node.mac = normalize_mac(node.mac).value_or(node.mac);
  // The same rules as a [[node]] of an inventory (validate_inventory): one validator for both.
  Locate at = locator(positions, path);
  std::map<std::string, std::string> addresses;
  for (std::size_t r = 0; r < node.rails.size(); ++r) {
    std::string key = "rails[" + std::to_string(r) + "]";
    auto a = parse_interface_address(node.rails[r]);
    if (!a || failed.count(key)) continue;
    auto [it, fresh] = addresses.emplace(a->address.str(), key);
    if (!fresh) diags.error(at(key), key + ": address '" + a->address.str() + "' is already used by " + it->second);
  }
  if (recipe) validate_node_rails(node, "", at, failed, *recipe, diags);
  if (diags.size() != before) return std::nullopt;
  return node;
}

}  // namespace railyard
