// firstboot/target/target_plan.cc: the storage rail planned as a node's rail with the
// target's address, the modules nvmet needs, and the problems that stop a target.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/hardware_builder.h"
#include "target_plan.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// A lab VM: four virtio NICs without RDMA devices (two per NUMA node) and a management port.
Inventory lab_vm() { return managed_server({{0, 2, 0, false}, {0, 2, 1, false}}); }

Recipe lab_recipe() {
  Recipe r = recipe("lab");
  r.fabric.soft_roce = true;
  r.fabric.vlan = 100;
  r.fabric.mtu = 1500;
  r.hardware.rail_count = 4;
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24", "198.18.3.0/24"};
  NvmeofTarget t;
  t.address = "198.18.0.100";
  t.nqn = "nqn.2026-11.org.railyard.lab:target0";
  r.nvmeof = {t};
  return r;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("the storage rail is planned like a node's rail, with the target's address") {
  Inventory inv = lab_vm();
  TargetPlan t = plan_target(inv, lab_recipe(), std::nullopt);
  REQUIRE(t.ok());
  REQUIRE(t.rails.rails.size() == 1);
  const RailPlan& rail = t.rails.rails[0];
  CHECK(rail.index == 0);
  CHECK(rail.ifname == "ens0f0");  // rail 0: the first non-management NIC by PCI address
  CHECK(rail.soft_roce_device == "rxe0");
  CHECK(rail.netdev == rail.ifname + ".100");
  CHECK(rail.mtu == 1500);
  CHECK(rail.address == std::optional<std::string>("198.18.0.100/24"));
  for (const char* m : {"8021q", "crc32_generic", "rdma_rxe", "null_blk", "nvmet", "nvmet_rdma"})
    CHECK_MESSAGE(has(t.rails.modules, m), m);
  CHECK_FALSE(has(t.rails.modules, "nvme_rdma"));          // a target does not connect to itself
  CHECK(t.rails.modules == target_modules(lab_recipe()));  // what it loads while it waits for its NICs
  CHECK(t.rails.nvmeof.empty());
  CHECK(t.rails.checks.empty());
  CHECK(t.rails.files.empty());
  REQUIRE(t.exports.size() == 1);
  CHECK(t.exports[0].transport == "rdma");
  CHECK(t.exports[0].address == "198.18.0.100");
  CHECK(t.exports[0].port == 4420);
  CHECK(t.exports[0].device == kTargetDevice);
}

TEST_CASE("a target on a later rail plans that rail only, whatever the recipe's rail count") {
  Recipe r = lab_recipe();
  r.nvmeof[0].rail = 2;
  r.nvmeof[0].address = "198.18.2.100";
  r.nvmeof[0].transport = NvmeTransport::tcp;
  TargetPlan t = plan_target(lab_vm(), r, std::nullopt);
  REQUIRE(t.ok());
  REQUIRE(t.rails.rails.size() == 1);
  CHECK(t.rails.rails[0].index == 2);
  CHECK(t.rails.rails[0].address == std::optional<std::string>("198.18.2.100/24"));
  CHECK(has(t.rails.modules, "nvmet_tcp"));
  CHECK(t.exports[0].transport == "tcp");
}

TEST_CASE("a VM with fewer NICs than the storage rail needs is a problem") {
  Recipe r = lab_recipe();
  r.nvmeof[0].rail = 3;
  r.nvmeof[0].address = "198.18.3.100";
  TargetPlan t = plan_target(managed_server({{0, 2, 0, false}}), r, std::nullopt);
  REQUIRE_FALSE(t.ok());
  CHECK(t.problems[0].find("wants 4 rails") != std::string::npos);
}

TEST_CASE("a recipe without NVMe-oF targets has nothing to serve") {
  Recipe r = lab_recipe();
  r.nvmeof.clear();
  TargetPlan t = plan_target(lab_vm(), r, std::nullopt);
  REQUIRE_FALSE(t.ok());
  CHECK(t.problems[0].find("no [[nvmeof]] target") != std::string::npos);
}

TEST_CASE("two targets on one rail must share its address") {
  Recipe r = lab_recipe();
  NvmeofTarget second = r.nvmeof[0];
  second.address = "198.18.0.101";
  second.nqn = "nqn.2026-11.org.railyard.lab:target1";
  r.nvmeof.push_back(second);
  TargetPlan t = plan_target(lab_vm(), r, std::nullopt);
  REQUIRE_FALSE(t.ok());
  CHECK(t.problems[0].find("one address per rail") != std::string::npos);

  r.nvmeof[1].address = "198.18.0.100";
  TargetPlan shared = plan_target(lab_vm(), r, std::nullopt);
  REQUIRE(shared.ok());
  CHECK(shared.rails.rails.size() == 1);
  CHECK(shared.exports.size() == 2);
}

TEST_CASE("on routed rails the target is a routed host: its storage rail a /32, the node's VNI from its VTEP") {
  Recipe r = lab_recipe();
  r.fabric.vlan.reset();  // untagged: on a routed link the DSCP carries the priority
  r.addressing.subnets.clear();
  r.routing.mode = RoutingMode::bgp_unnumbered;
  r.routing.leaf_asn = 65100;
  r.routing.fabric_prefixes = {"198.18.0.0/16"};
  r.tenant.vni = 100;
  r.tenant.flood = {"198.18.255.11", "198.18.255.100"};
  r.tenant.isolation_probe = "10.100.0.200";
  NodeEntry target{"lab-target01",
                   "52:54:00:00:00:02",
                   {"198.18.0.100", "198.18.1.100", "198.18.2.100", "198.18.3.100"},
                   "",
                   "swp2"};
  target.asn = 4200000100;
  target.vtep = "198.18.255.100";
  target.tenant_address = "10.100.0.100/24";
  TargetPlan t = plan_target(lab_vm(), r, target);
  REQUIRE_MESSAGE(t.ok(), (t.problems.empty() ? "" : t.problems.front()));
  REQUIRE(t.rails.rails.size() == 1);
  CHECK(t.rails.rails[0].address == std::optional<std::string>("198.18.0.100/32"));
  CHECK(t.rails.rails[0].netdev == t.rails.rails[0].ifname);
  REQUIRE(t.rails.tenant);
  CHECK(t.rails.tenant->vtep == "198.18.255.100");
  CHECK(t.rails.tenant->address == "10.100.0.100/24");
  CHECK(t.rails.tenant->flood == std::vector<std::string>{"198.18.255.11"});
  CHECK(t.rails.checks.empty());
  CHECK(t.exports.size() == 1);
}

TEST_CASE("a reference target carries the other rails' addresses on its storage NIC, each with its prefix") {
  NodeEntry target;
  target.hostname = "lab-target01";
  target.rails = {"198.18.0.100", "198.18.1.100", "198.18.2.100", "198.18.3.100"};
  target.reference = true;
  TargetPlan t = plan_target(lab_vm(), lab_recipe(), target);
  REQUIRE(t.ok());
  REQUIRE(t.rails.rails.size() == 1);
  CHECK(t.rails.rails[0].address == std::optional<std::string>("198.18.0.100/24"));
  CHECK(t.rails.rails[0].extra_addresses ==
        std::vector<std::string>{"198.18.1.100/24", "198.18.2.100/24", "198.18.3.100/24"});

  target.reference = false;  // a target that is no reference serves storage alone
  CHECK(plan_target(lab_vm(), lab_recipe(), target).rails.rails[0].extra_addresses.empty());
}
