// VLAN devices (objects/vlan.cc): created on the parent at the rail MTU, others never modified;
// verified.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"
#include "support/verify_node.h"

TEST_CASE("vlans: created on the parent, at the rail MTU, brought up; a second run changes nothing") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  add_conf(f.host, "ens1f0np0.200");
  Plan plan = plan_of({rail(0, "ens1f0np0", 200)});
  auto out = run_all(plan, f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): MTU").detail == "parent of ens1f0np0.200, set before it");
  Change vlan = find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
  CHECK(vlan.outcome == ChangeOutcome::changed);
  CHECK(vlan.before == "none");
  CHECK(vlan.after == "ens1f0np0.200 id 200 on ens1f0np0");
  // Created after its parent reached 9000, the VLAN inherits it: nothing to raise.
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").outcome == ChangeOutcome::unchanged);
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 up").outcome == ChangeOutcome::changed);
  const LinkInfo& l = f.rtnl.links["ens1f0np0.200"];
  CHECK(l.vlan_id == 200);
  CHECK(l.parent == "ens1f0np0");
  CHECK(l.mtu == 9000);
  CHECK(l.up);

  f.rtnl.writes.clear();
  CHECK(not_unchanged(run_all(plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
  CHECK(run(apply_vlans, plan_of({rail(1, "ens2f0np0")}), f.kernel).empty());  // no VLAN planned
}

TEST_CASE("vlans: an existing VLAN below the rail MTU is raised once its parent allows it") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, true);
  LinkInfo& v = f.rtnl.add_link("ens1f0np0.200", 1500, true);
  v.vlan_id = 200;
  v.parent = "ens1f0np0";
  Plan plan = plan_of({rail(0, "ens1f0np0", 200)});
  auto out = run_all(plan, f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200").outcome == ChangeOutcome::unchanged);
  Change mtu = find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU");
  CHECK(mtu.outcome == ChangeOutcome::changed);
  CHECK(mtu.before == "1500");
  CHECK(f.rtnl.writes == std::vector<std::string>{"set_mtu ens1f0np0 9000", "set_mtu ens1f0np0.200 9000"});

  // Out of order, the kernel refuses the VLAN more than its parent carries.
  FakeKernel g;
  g.rtnl.add_link("ens1f0np0", 1500, true);
  LinkInfo& w = g.rtnl.add_link("ens1f0np0.200", 1500, true);
  w.vlan_id = 200;
  w.parent = "ens1f0np0";
  out = run(apply_vlans, plan, g.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").detail ==
        "ens1f0np0.200: set MTU 9000: Numerical result out of range");
}

TEST_CASE("vlans: a device of the rail's name with another id, parent or kind is never modified") {
  struct Case {
    const char* name;
    std::optional<int> id;
    const char* parent;
    const char* detail;
  };
  const Case cases[] = {
      {"other id", 300, "ens1f0np0", "ens1f0np0.200 exists as ens1f0np0.200 id 300 on ens1f0np0; not modified"},
      {"other parent", 200, "ens2f0np0", "ens1f0np0.200 exists as ens1f0np0.200 id 200 on ens2f0np0; not modified"},
      {"not a VLAN", std::nullopt, "", "ens1f0np0.200 exists as ens1f0np0.200 (not a VLAN); not modified"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    FakeKernel f;
    f.rtnl.add_link("ens1f0np0", 9000, true);
    f.rtnl.add_link("ens2f0np0", 9000, true);
    LinkInfo& v = f.rtnl.add_link("ens1f0np0.200", 1500, false);
    v.vlan_id = c.id;
    v.parent = c.parent;
    auto out = run(apply_vlans, plan_of({rail(0, "ens1f0np0", 200)}), f.kernel);
    REQUIRE(out.size() == 1);
    CHECK(out[0].object == "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
    CHECK(out[0].outcome == ChangeOutcome::failed);
    CHECK(out[0].after == "ens1f0np0.200 id 200 on ens1f0np0");
    CHECK(out[0].detail == c.detail);
    CHECK(f.rtnl.writes.empty());
    CHECK(f.rtnl.links["ens1f0np0.200"].mtu == 1500);
  }
}

TEST_CASE("vlans: a kernel without 802.1Q answers unsupported with its reason; the rail's dependents fail") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.fail["add_vlan"] = EOPNOTSUPP;
  add_conf(f.host, "ens1f0np0");
  auto out = run_all(plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24")}), f.kernel);
  Change vlan = find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
  CHECK(vlan.outcome == ChangeOutcome::unsupported);
  CHECK(vlan.detail == "ens1f0np0.200: add VLAN 200 on ens1f0np0: Operation not supported");
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").object.rfind("missing", 0) == 0);
  Change address = find(out, "rail 0 (ens1f0np0): address on ens1f0np0.200");
  CHECK(address.outcome == ChangeOutcome::failed);
  CHECK(address.detail == "ens1f0np0.200: read addresses: No such device");
  Change sysctl = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_ignore");
  CHECK(sysctl.outcome == ChangeOutcome::failed);
  // The parent still got its MTU and came up.
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 9000);
  CHECK(f.rtnl.links["ens1f0np0"].up);
}

TEST_CASE("rail.N.vlan: the VLAN device with the planned id on the rail's NIC") {
  Node n;
  auto r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "ens1f0.200 id 200");
  CHECK(r.observed == "ens1f0.200 id 200");

  n.rtnl.links["ens1f0.200"].vlan_id = 100;
  r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens1f0.200 id 100 on ens1f0");

  n.rtnl.links["ens1f0.200"].vlan_id.reset();
  r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens1f0.200 untagged on ens1f0");

  n.rtnl.links["ens1f0.200"].vlan_id = kVlan;
  n.rtnl.links["ens1f0.200"].parent = "ens0f0";  // right id, wrong NIC
  CHECK(n.check("rail.1.vlan").status == CheckStatus::fail);

  n.rtnl.links.erase("ens1f0.200");
  CHECK(n.check("rail.1.vlan").status == CheckStatus::fail);
}
