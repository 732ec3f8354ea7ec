// The lab leaf and the faults of a lab run (builder/qemu/lab_leaf.cc, lab_faults.cc): lldpd's
// configuration rendered from leaf-config's JSON, the files the leaf VM gets, the cabling.
#include <algorithm>

#include <doctest/doctest.h>

#include "lldp.h"
#include "qemu/lab_faults.h"
#include "qemu/lab_identity.h"
#include "qemu/lab_leaf.h"
#include "recipe_loader.h"

using namespace railyard;

namespace {

Recipe lab_recipe() {
  Recipe r = default_recipe();
  r.name = "lab";
  r.fabric.vlan = 100;
  r.fabric.mtu = 1500;
  r.leaf.port_mtu = 9216;
  r.lldp.expect_system = "leaf-r{rail}";
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24"};
  NvmeofTarget t;
  t.address = "198.18.0.100";
  t.nqn = "nqn.2026-11.org.railyard.lab:target0";
  r.nvmeof = {t};
  return r;
}

NodeEntry lab_node() { return {"lab-node01", "52:54:00:00:00:01", {"198.18.0.11", "198.18.1.11"}, "", "swp1"}; }

std::string file(const std::vector<LabLeafFile>& files, const std::string& path) {
  for (const auto& f : files)
    if (f.path == path) return f.content;
  FAIL("no file " << path);
  return "";
}

}  // namespace

TEST_CASE("lab faults: each is parsed, bounded by the rails, and refused with what is allowed") {
  LabFaults f;
  CHECK(add_lab_fault("pause-storm=2", 4, f).ok());
  CHECK(add_lab_fault("swap-rails=3,1", 4, f).ok());
  CHECK(add_lab_fault("leaf-pfc=4", 4, f).ok());
  CHECK(add_lab_fault("no-lldp", 4, f).ok());
  CHECK(add_lab_fault("link-down=0", 4, f).ok());
  CHECK(f.pause_storms == std::vector<int>{2});
  CHECK(f.swapped == std::pair{1, 3});
  CHECK(f.leaf_pfc == 4);
  CHECK(f.no_lldp);
  CHECK(f.links_down == std::vector<int>{0});
  CHECK(cabled_rail(f, "lab-node01", true, 1) == 3);
  CHECK(cabled_rail(f, "lab-node01", true, 3) == 1);
  CHECK(cabled_rail(f, "lab-node01", true, 2) == 2);
  CHECK(cabled_rail(f, "lab-node02", false, 1) == 1);  // the first node's cables only
  // swap-rails=NODE:A,B: that node's.
  LabFaults named;
  CHECK(add_lab_fault("swap-rails=lab-node02:0,3", 4, named).ok());
  CHECK(named.swapped_node == "lab-node02");
  CHECK(cabled_rail(named, "lab-node01", true, 0) == 0);
  CHECK(cabled_rail(named, "lab-node02", false, 0) == 3);
  CHECK(add_lab_fault("swap-rails=:0,3", 4, named).error() ==
        "--fault swap-rails=:0,3: expected swap-rails=[NODE:]A,B, NODE a node of the run");

  LabFaults g;
  CHECK(add_lab_fault("pause-storm=4", 4, g).error() == "--fault pause-storm=4: expected pause-storm=R, R a rail 0–3");
  CHECK(add_lab_fault("swap-rails=1,1", 4, g).error() ==
        "--fault swap-rails=1,1: expected swap-rails=[NODE:]A,B, two different rails 0–3");
  CHECK(add_lab_fault("leaf-pfc=8", 4, g).error() == "--fault leaf-pfc=8: expected leaf-pfc=P, P a priority 0–7");
  CHECK(add_lab_fault("no-lldp=1", 4, g).error() == "--fault no-lldp=1: no-lldp takes no argument");
  CHECK(add_lab_fault("melt", 4, g).error().starts_with("--fault melt: unknown fault 'melt'; allowed: link-down=R"));
  CHECK(add_lab_fault("controller-outage=12", 4, g).ok());
  CHECK(g.controller_outage_s == 12);
  CHECK_FALSE(g.any_leaf());  // the controller is no leaf's business
  for (const char* bad : {"controller-outage=0", "controller-outage=21", "controller-outage", "controller-outage=x"})
    CHECK(add_lab_fault(bad, 4, g).error() ==
          "--fault " + std::string(bad) + ": expected controller-outage=S, S seconds 1–20");

  LabFaults routed;
  CHECK(add_lab_fault("leaf-bgp-down=1", 4, routed).ok());
  CHECK(add_lab_fault("leaf-refuse-asn=2", 4, routed).ok());
  CHECK(add_lab_fault("tenant-leak", 4, routed).ok());
  CHECK(routed.leaf_bgp_down == std::vector<int>{1});
  CHECK(routed.leaf_refuse_asn == std::vector<int>{2});
  CHECK(routed.tenant_leak);
  CHECK(routed.any_routed());
  CHECK(routed.any_leaf());
  CHECK(add_lab_fault("leaf-bgp-down=4", 4, g).error() ==
        "--fault leaf-bgp-down=4: expected leaf-bgp-down=R, R a rail 0–3");
  CHECK(add_lab_fault("tenant-leak=1", 4, g).error() == "--fault tenant-leak=1: tenant-leak takes no argument");
  CHECK_FALSE(g.any_routed());
}

TEST_CASE("lab faults: rail-loss and rail-slow name a node and its rail, and become netem's arguments") {
  LabFaults f;
  CHECK(add_lab_fault("rail-loss=lab-node01:1:5", 4, f).ok());
  CHECK(add_lab_fault("rail-slow=lab-node02:2:1", 4, f).ok());
  REQUIRE(f.shaped.size() == 2);
  CHECK(f.shaped[0].node == "lab-node01");
  CHECK(f.shaped[0].rail == 1);
  CHECK(f.shaped[0].netem() == "loss random 5%");
  CHECK(f.shaped[1].netem() == "rate 1mbit");
  CHECK(f.any_leaf());  // the leaf's ports are shaped
  CHECK(add_lab_fault("rail-slow=lab-node01:1:10", 4, f).error() ==
        "--fault rail-slow=lab-node01:1:10: node lab-node01's rail 1 is shaped already");
  LabFaults g;
  for (const char* bad : {"rail-loss=lab-node01:4:5", "rail-loss=lab-node01:1:0", "rail-loss=lab-node01:1:101",
                          "rail-loss=:1:5", "rail-loss=lab-node01:1", "rail-loss=lab-node01:1:x"})
    CHECK(add_lab_fault(bad, 4, g).error() ==
          "--fault " + std::string(bad) + ": expected rail-loss=NODE:R:PCT, PCT 1–100, R a rail 0–3");
  CHECK(add_lab_fault("rail-slow=n:0:10001", 4, g).error() ==
        "--fault rail-slow=n:0:10001: expected rail-slow=NODE:R:MBIT, MBIT 1–10000, R a rail 0–3");
  CHECK(g.shaped.empty());
}

TEST_CASE("lab faults: one the image's recipe cannot have is refused before a VM boots") {
  LabFaults leak, bgp, pfc;
  REQUIRE(add_lab_fault("tenant-leak", 2, leak).ok());
  REQUIRE(add_lab_fault("leaf-bgp-down=1", 2, bgp).ok());
  REQUIRE(add_lab_fault("leaf-pfc=4", 2, pfc).ok());
  Recipe l2 = lab_recipe();
  CHECK(check_lab_faults(pfc, l2).ok());
  CHECK(check_lab_faults(bgp, l2).error() ==
        "--fault leaf-bgp-down, leaf-refuse-asn and tenant-leak need routed rails: the image's recipe has routing.mode "
        "= \"l2\"");
  Recipe routed = lab_recipe();
  routed.routing.mode = RoutingMode::bgp_unnumbered;
  CHECK(check_lab_faults(bgp, routed).ok());
  CHECK(check_lab_faults(leak, routed).error() ==
        "--fault tenant-leak: the image's recipe has no [tenant] network (tenant.vni), so there is no VNI to leak into "
        "and tenant.isolation is not planned");
  routed.tenant.vni = 100;
  CHECK(check_lab_faults(leak, routed).ok());
}

TEST_CASE("the lab leaf: leaf-config's JSON per leaf, an lldpd configuration per port, the ports by MAC") {
  auto files = lab_leaf_files(lab_recipe(), lab_node(), {"52:54:00:30:00:fe", "52:54:00:31:00:fe"}, {});
  REQUIRE(files.ok());
  CHECK(file(*files, "etc/railyard/lab-leaf/ports") ==
        "52:54:00:30:00:fe 0 leaf-r0-port0\n52:54:00:31:00:fe 1 leaf-r1-port1\n");
  auto doc = nlohmann::json::parse(file(*files, "etc/railyard/lab-leaf/leaf-config/leaf-r1.json"));
  CHECK(doc["leaf"] == "leaf-r1");
  CHECK(doc["ports"][0]["port"] == "swp1");
  std::string conf = file(*files, "etc/railyard/lab-leaf/leaf-r1-port1.conf");
  CAPTURE(conf);
  CHECK(conf.find("configure system hostname \"leaf-r1\"\n") != std::string::npos);
  CHECK(
      conf.find("configure ports @IFNAME@ lldp portidsubtype local \"swp1\" description \"to lab-node01 rail 1\"\n") !=
      std::string::npos);
  // PFC: not willing, capability 8; priority 3 (0x08). Frame size 9216 (0x2400). VLAN 100
  // named rail1.
  CHECK(conf.find("oui 00,80,c2 subtype 11 oui-info 08,08\n") != std::string::npos);
  CHECK(conf.find("oui 00,12,0f subtype 4 oui-info 24,00\n") != std::string::npos);
  CHECK(conf.find("oui 00,80,c2 subtype 3 oui-info 00,64,05,72,61,69,6c,31\n") != std::string::npos);
}

TEST_CASE("the lab leaf: leaf-pfc advertises another priority, no-lldp starts no lldpd") {
  LabFaults f;
  f.leaf_pfc = 4;
  auto files = lab_leaf_files(lab_recipe(), lab_node(), {"52:54:00:30:00:fe", "52:54:00:31:00:fe"}, f);
  REQUIRE(files.ok());
  CHECK(file(*files, "etc/railyard/lab-leaf/leaf-r0-port0.conf").find("subtype 11 oui-info 08,10\n") !=
        std::string::npos);
  LabFaults quiet;
  quiet.no_lldp = true;
  auto none = lab_leaf_files(lab_recipe(), lab_node(), {"52:54:00:30:00:fe", "52:54:00:31:00:fe"}, quiet);
  REQUIRE(none.ok());
  CHECK(file(*none, "etc/railyard/lab-leaf/ports") == "52:54:00:30:00:fe 0 -\n52:54:00:31:00:fe 1 -\n");
  for (const auto& f2 : *none) CHECK_FALSE(f2.path.ends_with(".conf"));
}

TEST_CASE("a lab VM without an inventory: the addresses the recipe implies") {
  Recipe r = lab_recipe();
  NodeEntry node = implied_identity(r, "railyard-lab", "52:54:00:00:00:01", LabRole::node);
  CHECK(node.rails == std::vector<std::string>{"198.18.0.11", "198.18.1.11"});
  NodeEntry target = implied_identity(r, "railyard-target", "52:54:00:00:00:FE", LabRole::storage_target);
  CHECK(target.rails == std::vector<std::string>{"198.18.0.100", "198.18.1.100"});
  CHECK(target.mac == "52:54:00:00:00:fe");
  CHECK(leaf_port_macs("52:54:00:00:00:fe", 2) == std::vector<std::string>{"52:54:00:30:00:fe", "52:54:00:31:00:fe"});
}

namespace {

Recipe routed_recipe() {
  Recipe r = lab_recipe();
  r.fabric.vlan.reset();
  r.routing.mode = RoutingMode::bgp_unnumbered;
  r.routing.leaf_asn = 65100;
  r.routing.fabric_prefixes = {"198.18.0.0/16"};
  r.tenant.vni = 100;
  r.tenant.flood = {"198.18.255.11", "198.18.255.100"};
  r.tenant.isolation_probe = "10.100.0.200";
  return r;
}

NodeEntry routed_node() {
  NodeEntry n = lab_node();
  n.asn = 4200000011;
  n.vtep = "198.18.255.11";
  n.tenant_address = "10.100.0.11/24";
  return n;
}

LabRoutedLeaf routed_target() {
  NodeEntry t{"lab-target01", "52:54:00:00:00:02", {"198.18.0.100", "198.18.1.100"}, "", "swp2"};
  t.asn = 4200000100;
  t.vtep = "198.18.255.100";
  t.tenant_address = "10.100.0.100/24";
  return {t, "52:54:00:32:00:02", "enp0s6"};
}

const std::vector<std::string> kPorts = {"52:54:00:30:00:02", "52:54:00:31:00:02"};

}  // namespace

TEST_CASE("the routed lab leaf: a router per rail from leaf-config's frr.conf, the target a routed host beside them") {
  auto files = lab_leaf_files(routed_recipe(), routed_node(), kPorts, {}, routed_target());
  REQUIRE(files.ok());
  const std::string dir = "etc/railyard/lab-leaf/";
  // Rail r's leaf: its frr.conf (as leaf-config writes it), the node's port, the target's.
  CHECK(file(*files, dir + "routed") == "0 leaf-r0-rail0.frr.conf swp1 swp2\n1 leaf-r1-rail1.frr.conf swp1 swp2\n");
  CHECK(file(*files, dir + "storage-port") == "52:54:00:32:00:02\n");
  std::string leaf1 = file(*files, dir + "leaf-r1-rail1.frr.conf");
  CAPTURE(leaf1);
  CHECK(leaf1.find("router bgp 65101\n") != std::string::npos);
  CHECK(leaf1.find(" neighbor swp1 interface remote-as 4200000011\n") != std::string::npos);
  CHECK(leaf1.find(" neighbor swp2 interface remote-as 4200000100\n") != std::string::npos);
  // The lldpd of each leaf still describes the node's port.
  CHECK(file(*files, dir + "leaf-r1-port1.conf").find("description \"to lab-node01 rail 1\"") != std::string::npos);

  // The target: what the agent would write for it, rail 0 on its storage NIC.
  std::string target = file(*files, dir + "target-frr.conf");
  CAPTURE(target);
  CHECK(target.find("router bgp 4200000100\n") != std::string::npos);
  CHECK(target.find(" neighbor enp0s6 interface remote-as external\n") != std::string::npos);
  CHECK(target.find(" neighbor rail1 interface remote-as external\n") != std::string::npos);
  CHECK(target.find("  network 198.18.1.100/32\n") != std::string::npos);
  CHECK(target.find("  network 198.18.255.100/32\n") != std::string::npos);
  CHECK(file(*files, dir + "target-daemons").find("bgpd=yes\n") != std::string::npos);
  std::string env = file(*files, dir + "target.env");
  CAPTURE(env);
  CHECK(env.find("TARGET_RAILS='1=198.18.1.100/32'\n") != std::string::npos);
  CHECK(env.find("VNI='100'\nVTEP='198.18.255.100'\nFLOOD='198.18.255.11'\nOTHER_VNI='101'\n"
                 "OTHER_ADDRESS='10.100.0.200/32'\nTENANT_LEAK='0'\n") != std::string::npos);
}

TEST_CASE("the routed lab leaf: leaf-bgp-down starts no bgpd, leaf-refuse-asn expects another AS, tenant-leak") {
  LabFaults f;
  f.leaf_bgp_down = {1};
  f.leaf_refuse_asn = {0};
  f.tenant_leak = true;
  auto files = lab_leaf_files(routed_recipe(), routed_node(), kPorts, f, routed_target());
  REQUIRE(files.ok());
  const std::string dir = "etc/railyard/lab-leaf/";
  CHECK(file(*files, dir + "routed") == "0 leaf-r0-rail0.frr.conf swp1 swp2\n1 - swp1 swp2\n");
  std::string leaf0 = file(*files, dir + "leaf-r0-rail0.frr.conf");
  CHECK(leaf0.find(" neighbor swp1 interface remote-as 4200000012\n") != std::string::npos);
  CHECK(leaf0.find(" neighbor swp2 interface remote-as 4200000100\n") != std::string::npos);
  CHECK(file(*files, dir + "target.env").find("TENANT_LEAK='1'\n") != std::string::npos);

  // Both VMs need a port name on every leaf: a session is named by its port.
  LabRoutedLeaf unnamed = routed_target();
  unnamed.target.lldp_port = "";
  auto refused = lab_leaf_files(routed_recipe(), routed_node(), kPorts, {}, unnamed);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("lab-target01's port on rail 0") != std::string::npos);
}

TEST_CASE("the lab target's early modules: the target's own and the leaf's, never the initiator's") {
  auto has = [](const std::vector<std::string>& v, const std::string& m) {
    return std::find(v.begin(), v.end(), m) != v.end();
  };
  const auto bridged = lab_target_modules(lab_recipe(), false);
  for (const char* m : {"8021q", "rdma_cm", "null_blk", "nvmet", "nvmet_rdma", "bridge"})
    CHECK_MESSAGE(has(bridged, m), m);
  CHECK_FALSE(has(bridged, "nvme_rdma"));  // a target does not connect to itself
  CHECK_FALSE(has(bridged, "veth"));
  const auto routed = lab_target_modules(lab_recipe(), true);
  CHECK(has(routed, "veth"));
  CHECK_FALSE(has(routed, "bridge"));  // routed leaves are namespaces, not a bridge
}

TEST_CASE("the lab leaf with two nodes: a port per node and rail, each with its node's LLDP port; shaped ports") {
  NodeEntry second{"lab-node02", "52:54:00:00:00:03", {"198.18.0.12", "198.18.1.12"}, "", "swp2"};
  LabFaults f;
  REQUIRE(add_lab_fault("rail-loss=lab-node02:1:5", 2, f).ok());
  std::vector<std::string> macs = {"52:54:00:30:00:fe", "52:54:00:31:00:fe", "52:54:00:32:00:fe", "52:54:00:33:00:fe"};
  auto files = lab_leaf_files(lab_recipe(), std::vector<NodeEntry>{lab_node(), second}, macs, f);
  REQUIRE(files.ok());
  CHECK(file(*files, "etc/railyard/lab-leaf/ports") ==
        "52:54:00:30:00:fe 0 leaf-r0-port0\n52:54:00:31:00:fe 1 leaf-r1-port1\n"
        "52:54:00:32:00:fe 0 leaf-r0-port0-lab-node02\n52:54:00:33:00:fe 1 leaf-r1-port1-lab-node02\n");
  std::string conf = file(*files, "etc/railyard/lab-leaf/leaf-r1-port1-lab-node02.conf");
  CHECK(
      conf.find("configure ports @IFNAME@ lldp portidsubtype local \"swp2\" description \"to lab-node02 rail 1\"\n") !=
      std::string::npos);
  CHECK(file(*files, "etc/railyard/lab-leaf/leaf-r1-port1.conf").find("\"swp1\"") != std::string::npos);
  CHECK(file(*files, "etc/railyard/lab-leaf/shaping") == "52:54:00:33:00:fe loss random 5%\n");

  LabFaults stranger;
  REQUIRE(add_lab_fault("rail-slow=lab-node09:0:1", 2, stranger).ok());
  CHECK(lab_leaf_files(lab_recipe(), std::vector<NodeEntry>{lab_node(), second}, macs, stranger).error() ==
        "the lab leaf: no node lab-node09 is cabled to it (rail-loss, rail-slow)");
  CHECK(lab_leaf_files(lab_recipe(), std::vector<NodeEntry>{lab_node(), second}, {"52:54:00:30:00:fe"}, {}).error() ==
        "the lab leaf: 1 ports for 2 nodes");
  auto one = lab_leaf_files(lab_recipe(), lab_node(), {"52:54:00:30:00:fe", "52:54:00:31:00:fe"}, {});
  REQUIRE(one.ok());
  CHECK(std::none_of(one->begin(), one->end(), [](const LabLeafFile& x) { return x.path.ends_with("/shaping"); }));
}
