// Rail links (objects/link.cc): up at the rail MTU, and verified by MTU and operational state.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"
#include "support/verify_node.h"

TEST_CASE("links: MTU then up on the physical interface; a second run changes nothing") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  Plan plan = plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")});

  auto first = run(apply_links, plan, f.kernel);
  Change mtu = find(first, "rail 0 (ens1f0np0): MTU");
  CHECK(mtu.outcome == ChangeOutcome::changed);
  CHECK(mtu.before == "1500");
  CHECK(mtu.after == "9000");
  Change up = find(first, "rail 0 (ens1f0np0): up");
  CHECK(up.outcome == ChangeOutcome::changed);
  CHECK(up.before == "down");
  CHECK(find(first, "rail 1 (ens2f0np0): MTU").outcome == ChangeOutcome::unchanged);
  CHECK(find(first, "rail 1 (ens2f0np0): up").outcome == ChangeOutcome::unchanged);
  CHECK(f.rtnl.writes == std::vector<std::string>{"set_mtu ens1f0np0 9000", "set_link_up ens1f0np0"});
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 9000);
  CHECK(f.rtnl.links["ens1f0np0"].up);

  f.rtnl.writes.clear();
  CHECK(not_unchanged(run(apply_links, plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("links: a missing rail interface fails; a refused MTU carries the kernel's reason") {
  FakeKernel f;
  f.rtnl.add_link("ens2f0np0", 1500, true);
  f.rtnl.fail["set_mtu ens2f0np0"] = EINVAL;
  auto out = run(apply_links, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")}), f.kernel);
  Change missing = find(out, "rail 0 (ens1f0np0): link");
  CHECK(missing.outcome == ChangeOutcome::failed);
  CHECK(missing.detail == "ens1f0np0: read link: No such device");
  Change mtu = find(out, "rail 1 (ens2f0np0): MTU");
  CHECK(mtu.outcome == ChangeOutcome::failed);
  CHECK(mtu.detail == "ens2f0np0: set MTU 9000: Invalid argument");
}

TEST_CASE("rail.N.link: operstate up passes; down fails pointing at the cable") {
  Node n;
  auto r = n.check("rail.0.link");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "up");

  n.nic("ens0f0").operstate = "down";
  r = n.check("rail.0.link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "down");
  CHECK(contains(r.detail, "no carrier"));

  std::erase_if(n.now.nics, [](const Nic& x) { return x.ifname == "ens0f0"; });
  CHECK(n.check("rail.0.link").observed == "absent");
}

TEST_CASE("rail.N.mtu: the address-carrying device (the VLAN) at the planned MTU") {
  Node n;
  auto r = n.check("rail.0.mtu");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "9000");
  CHECK(r.observed == "9000");

  n.rtnl.links["ens0f0.200"].mtu = 1500;  // the parent is still at 9000
  r = n.check("rail.0.mtu");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "1500");

  n.rtnl.links.erase("ens0f0.200");
  r = n.check("rail.0.mtu");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);  // ENODEV: a missing device is a failure
  CHECK(r.observed == "error");
  CHECK(contains(r.detail, "ens0f0.200"));
}
