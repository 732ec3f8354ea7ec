// The dry-run rtnetlink (kernel/dry_run_rtnl.cc): writes logged, the kernel untouched, reads agree.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"

TEST_CASE("dry run: writes are logged, the kernel is untouched, and later reads agree with the log") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.addrs["ens1f0np0"] = {};
  std::vector<std::string> log;
  DryRunRtnl dry(f.rtnl, log);
  Kernel k{dry, f.dcb, f.ethtool, f.host};
  Plan plan = plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100)});
  std::vector<Change> out;
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing}) a(plan, k, out);
  CHECK(log == std::vector<std::string>{
                   "would set MTU 9000 on ens1f0np0",
                   "would set ens1f0np0 up",
                   "would add VLAN 200 on ens1f0np0 as ens1f0np0.200",
                   "would set ens1f0np0.200 up",
                   "would add address 198.18.0.11/24 to ens1f0np0.200",
                   "would add route 198.18.0.0/24 dev ens1f0np0.200 src 198.18.0.11 table 100",
                   "would add rule from 198.18.0.11/32 lookup 100 priority 1000",
               });
  CHECK(f.rtnl.writes.empty());
  CHECK(f.rtnl.links.size() == 1);
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 1500);

  // The "created" VLAN reads as the kernel would show it; the rest reads as logged.
  auto v = dry.link("ens1f0np0.200");
  REQUIRE(v.ok());
  CHECK(v->vlan_id == 200);
  CHECK(v->parent == "ens1f0np0");
  CHECK(v->mtu == 9000);
  CHECK(*dry.addresses("ens1f0np0.200") == std::vector<std::string>{"198.18.0.11/24"});
  CHECK(dry.link("ens1f0np9").code() == ENODEV);

  log.clear();
  out.clear();
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing}) a(plan, k, out);
  CHECK(not_unchanged(out) == "");
  CHECK(log.empty());
}

TEST_CASE("dry run: a freshly created VLAN reads empty and down") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  std::vector<std::string> log;
  DryRunRtnl dry(f.rtnl, log);
  REQUIRE(dry.add_vlan("ens1f0np0", "ens1f0np0.7", 7).ok());
  auto v = dry.link("ens1f0np0.7");
  REQUIRE(v.ok());
  CHECK_FALSE(v->up);
  auto a = dry.addresses("ens1f0np0.7");
  REQUIRE(a.ok());
  CHECK(a->empty());
}
