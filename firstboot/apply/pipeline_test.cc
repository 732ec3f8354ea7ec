// The whole apply over fakes of every kernel interface: a 2-GPU/2-rail node with VLANs,
// PFC, ECN, NVMe-oF and ACS. The first run changes what differs; the second changes
// nothing (knobs the fakes lack stay unsupported, never "changed" again).
#include <doctest/doctest.h>

#include "apply/apply.h"
#include "support/fake_dcb.h"
#include "support/host_rig.h"
#include "support/fake_rtnl.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

struct Node {
  FakeRtnl rtnl;
  FakeDcb dcb;
  FakeEthtool ethtool;
  FakeHost host;
  Kernel kernel{rtnl, dcb, ethtool, host};
};

Plan two_rail_plan() {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  r.fabric.mtu = 9000;
  r.gpudirect.disable_acs = true;
  NvmeofTarget t;
  t.address = "198.18.0.100";
  t.nqn = "nqn.2026-11.org.railyard.lab:target0";
  r.nvmeof = {t};
  return make_plan(managed_server({{1, 1, 0}, {1, 1, 0}}), r, node());
}

// The node as it boots: rails down at MTU 1500, no VLANs, kernel files at their defaults.
void boot(Node& n, const Plan& p) {
  n.host.writes_create = true;  // /etc/nvme files are created; kernel files are set up below
  n.host.files["/sys/class/dmi/id/product_uuid"] = "4c4c4544-0042-3510-8052-b4c04f333732";
  n.host.available_modules = {"8021q", "ib_uverbs", "rdma_cm", "rdma_ucm", "nvme_rdma", "nvidia_peermem"};
  n.rtnl.add_link("eno1", 1500, true);
  for (const auto& rail : p.rails) {
    n.rtnl.add_link(rail.ifname);
    for (const auto& s : rail.sysctls) n.host.files["/proc/sys/" + s.path] = "0";
    n.dcb.pfcs[rail.ifname] = IeeePfc{8, 0, 0, 32};
    n.host.files["/sys/class/net/" + rail.ifname + "/qos/trust"] = "pcp";
  }
  for (const auto& bdf : p.acs_disable) n.host.config[bdf] = std::vector<std::uint8_t>(4096, 0);
}

int count(const std::vector<Change>& changes, ChangeOutcome o) {
  int n = 0;
  for (const auto& c : changes) n += c.outcome == o;
  return n;
}

std::string listing(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes) out += to_string(c.outcome) + "  " + c.object + "  " + c.detail + "\n";
  return out;
}

}  // namespace

TEST_CASE("apply: the first run changes what differs, the second changes nothing") {
  Plan p = two_rail_plan();
  REQUIRE(p.ok());
  REQUIRE(p.rails.size() == 2);
  Node n;
  boot(n, p);

  auto first = apply_plan(p, n.kernel);
  INFO(listing(first));
  CHECK(count(first, ChangeOutcome::failed) == 0);
  CHECK(count(first, ChangeOutcome::changed) > 20);
  CHECK(n.rtnl.links.at("ens0f0.200").vlan_id == 200);
  CHECK(n.rtnl.links.at("ens0f0").mtu == 9000);
  CHECK(n.dcb.pfcs.at("ens0f0").pfc_en == 0x08);
  CHECK(n.dcb.pfcs.at("ens0f0").delay == 32);  // read-modify-write keeps the cable delay
  CHECK(n.host.files.at("/sys/class/net/ens0f0/qos/trust") == "dscp");
  CHECK(n.host.connects.size() == 1);

  // The connection made, as the kernel would then list it.
  n.host.files["/sys/class/nvme/nvme1/transport"] = "rdma";
  n.host.files["/sys/class/nvme/nvme1/subsysnqn"] = "nqn.2026-11.org.railyard.lab:target0";
  n.host.files["/sys/class/nvme/nvme1/address"] = "traddr=198.18.0.100,trsvcid=4420,src_addr=198.18.0.11";
  auto second = apply_plan(p, n.kernel);
  INFO(listing(second));
  CHECK(count(second, ChangeOutcome::changed) == 0);
  CHECK(count(second, ChangeOutcome::failed) == 0);
  CHECK(count(second, ChangeOutcome::unsupported) == count(first, ChangeOutcome::unsupported));
  CHECK(second.size() == first.size());
  CHECK(n.host.connects.size() == 1);
}

TEST_CASE("apply: the management interface is never among the objects touched") {
  Plan p = two_rail_plan();
  Node n;
  boot(n, p);
  for (const auto& c : apply_plan(p, n.kernel)) CHECK(c.object.find("eno1") == std::string::npos);
  for (const auto& w : n.rtnl.writes) CHECK(w.find("eno1") == std::string::npos);
}

TEST_CASE("apply_plan refuses a plan with problems or one touching the management interface") {
  Rig rig;
  Plan bad;
  bad.problems = {"the recipe wants 8 rails; 6 RDMA NIC(s) found"};
  auto c = apply_plan(bad, rig.kernel);
  REQUIRE(c.size() == 1);
  CHECK(c[0].outcome == ChangeOutcome::failed);
  Plan mgmt;
  mgmt.management = "eno1";
  mgmt.rails = {rail(0, "eno1", "mlx5_0")};
  c = apply_plan(mgmt, rig.kernel);
  REQUIRE(c.size() == 1);
  CHECK(c[0].detail == "the plan would touch the management interface eno1; refused");
}
