// RoCE LAG rails (a bond of a card's two ports, one RDMA device): the bond carries the MTU,
// VLAN and address; PFC, the DSCP map, trust, ECN, storm prevention and pause counters are
// set and checked on every port; link and speed need every port.
#include <doctest/doctest.h>

#include "apply/apply.h"
#include "support/verify_node.h"

namespace {

Node bonded() { return Node({}, three_bonded_rails()); }

}  // namespace

TEST_CASE("bonded rails: the plan names the bond and its ports, and a healthy node passes every check") {
  Node n = bonded();
  const RailPlan& r = n.rail(0);
  CHECK(r.ifname == "bond0");
  CHECK(r.netdev == "bond0.200");
  CHECK(r.bond_ports == std::vector<std::string>{"ens0f0", "ens0f0p1"});
  CHECK(r.rdma_device == "mlx5_0");
  CHECK(to_json(n.plan)["rails"][0]["bond_ports"] == nlohmann::ordered_json{"ens0f0", "ens0f0p1"});
  auto results = n.verify_all();
  CAPTURE(listing(results));
  for (const auto& c : results) {
    CAPTURE(c.name());
    CHECK(c.status == CheckStatus::pass);
  }
  CHECK(n.check("rail.0.pfc").expected == "priority 3 lossless on each of ens0f0, ens0f0p1");
  CHECK(n.check("rail.0.pfc").observed == "pfc_en 0x08 on ens0f0, ens0f0p1");
  CHECK(n.check("rail.1.link").observed == "up, 2 of 2 ports up");
  CHECK(n.check("rail.1.speed").observed == "ens1f0 200000 Mb/s, ens1f0p1 200000 Mb/s");
}

TEST_CASE("bonded rails: one port without PFC, trust or ECN fails the rail, naming the port") {
  Node n = bonded();
  n.dcb.pfcs["ens1f0p1"].pfc_en = 0;
  auto r = n.check("rail.1.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens1f0: pfc_en 0x08; ens1f0p1: pfc_en 0x00");
  CHECK(contains(r.detail, "ens1f0p1: PFC is not as applied"));
  CHECK_FALSE(contains(r.detail, "ens1f0: "));

  n.host.files["/sys/class/net/ens2f0/qos/trust"] = "pcp";
  r = n.check("rail.2.trust");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens2f0: pcp; ens2f0p1: dscp");

  n.host.files.erase("/sys/class/net/ens0f0p1/ecn/roce_np/enable/3");
  r = n.check("rail.0.ecn");
  CAPTURE(text(r));
  CHECK(r.status != CheckStatus::pass);
  CHECK(contains(r.observed, "ens0f0p1: "));
}

TEST_CASE("bonded rails: a port without carrier or below speed fails link and speed, though the bond is up") {
  Node n = bonded();
  n.nic("bond2").bond_ports[1].operstate = "down";
  n.nic("bond2").bond_ports[1].speed_mbps = -1;
  auto link = n.check("rail.2.link");
  CAPTURE(text(link));
  CHECK(link.status == CheckStatus::fail);
  CHECK(link.observed == "up, 1 of 2 ports up (ens2f0p1 down)");
  CHECK(contains(link.detail, "a port of bond2 has no carrier"));
  auto speed = n.check("rail.2.speed");
  CHECK(speed.status == CheckStatus::fail);
  CHECK(speed.observed == "ens2f0 200000 Mb/s, ens2f0p1 unknown");
  CHECK(contains(speed.detail, "ens2f0p1 below the rail speed"));

  // The bond's summed speed hides one slow port: the ports are what is checked.
  n.nic("bond0").speed_mbps = 300000;
  n.nic("bond0").bond_ports[1].speed_mbps = 100000;
  CHECK(n.check("rail.0.speed").status == CheckStatus::fail);
}

TEST_CASE("bonded rails: apply sets DCB on each port, and the MTU and VLAN on the bond") {
  Node n = bonded();
  // As the node boots: nothing set.
  for (const auto& r : n.plan.rails) {
    n.rtnl.links.erase(r.netdev);
    n.rtnl.links[r.ifname].mtu = 1500;
    for (const auto& p : port_views(r)) {
      n.rtnl.add_link(p.ifname, 1500, true);
      n.dcb.pfcs[p.ifname] = IeeePfc{8, 0, 0, 32};
      n.dcb.tables[p.ifname] = {};
    }
  }
  auto changes = apply_plan(n.plan, n.kernel);
  std::string all;
  for (const auto& c : changes) all += to_string(c.outcome) + "  " + c.object + "  " + c.detail + "\n";
  CAPTURE(all);
  for (const std::string port : {"ens0f0", "ens0f0p1", "ens1f0", "ens1f0p1", "ens2f0", "ens2f0p1"}) {
    CAPTURE(port);
    CHECK(n.dcb.pfcs[port].pfc_en == 0x08);
    CHECK(n.dcb.pfcs[port].delay == 32);  // kept
    CHECK(n.dcb.tables[port].size() == 64);
  }
  CHECK(contains(all, "rail 0 (ens0f0p1 of bond0): PFC"));
  CHECK(n.rtnl.links["bond1"].mtu == 9000);
  CHECK(n.rtnl.links["bond1.200"].parent == "bond1");
  // Nothing of DCB is asked of the bond itself.
  CHECK(n.dcb.pfcs.count("bond0") == 0);
}
