// Rail routing (objects/routing.cc): per-rail tables and rules on a shared subnet, never a default
// route.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"
#include "support/verify_node.h"

TEST_CASE("routing: shared subnet gets a table per rail with the subnet route and a source rule") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  f.rtnl.addrs["ens2f0np0"] = {"198.18.0.12/24"};
  f.rtnl.route_entries = {{"198.18.0.0/24", "ens1f0np0", "198.18.0.11", 254, ""},
                          {"198.18.0.0/24", "ens2f0np0", "198.18.0.12", 254, ""}};
  Plan plan = plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100),
                       rail(1, "ens2f0np0", std::nullopt, "198.18.0.12/24", 101)});
  auto out = run(apply_routing, plan, f.kernel);
  Change r0 = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(r0.outcome == ChangeOutcome::changed);
  CHECK(r0.after == "198.18.0.0/24 dev ens1f0np0 src 198.18.0.11 table 100");
  Change rule1 = find(out, "rail 1 (ens2f0np0): rule from 198.18.0.12/32");
  CHECK(rule1.outcome == ChangeOutcome::changed);
  CHECK(rule1.after == "from 198.18.0.12/32 lookup 101 priority 1001");
  CHECK(find(out, "rail 0 (ens1f0np0): default route").outcome == ChangeOutcome::unchanged);
  CHECK(f.rtnl.writes == std::vector<std::string>{
                             "add_route 198.18.0.0/24 dev ens1f0np0 table 100", "add_rule 198.18.0.11/32 100 1000",
                             "add_route 198.18.0.0/24 dev ens2f0np0 table 101", "add_rule 198.18.0.12/32 101 1001"});
  f.rtnl.writes.clear();
  CHECK(not_unchanged(run(apply_routing, plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: per-rail subnets add nothing; only the default-route check is reported") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24")}), f.kernel);
  CHECK(listing(out) == "rail 0 (ens1f0np0): default route: unchanged [none → none]\n");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: a default route via a rail's netdev or interface fails and is left in place") {
  FakeKernel f;
  f.rtnl.add_link("eno1", 1500, true);
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0.200", 9000, true).vlan_id = 200;
  f.rtnl.route_entries = {{"default", "eno1", "", 254, ""}, {"default", "ens2f0np0.200", "", 254, ""}};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0", 200)}), f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): default route").outcome == ChangeOutcome::unchanged);
  Change d = find(out, "rail 1 (ens2f0np0): default route");
  CHECK(d.outcome == ChangeOutcome::failed);
  CHECK(d.before == "default dev ens2f0np0.200");
  CHECK(d.detail == "default route via ens2f0np0.200 on a rail");
  CHECK(f.rtnl.route_entries.size() == 2);

  f.rtnl.route_entries = {{"default", "ens1f0np0", "", 254, ""}};  // on the physical interface
  out = run(apply_routing, plan_of({rail(0, "ens1f0np0", 300)}), f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): default route").detail == "default route via ens1f0np0 on a rail");
}

TEST_CASE("routing: another route for the subnet in the rail's table is reported, not replaced") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  f.rtnl.route_entries = {{"198.18.0.0/24", "ens9", "", 100, ""}};
  f.rtnl.rule_entries = {{32000, "198.18.0.11/32", 100}};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100)}), f.kernel);
  Change route = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(route.outcome == ChangeOutcome::failed);
  CHECK(route.before == "198.18.0.0/24 dev ens9 table 100");
  CHECK(route.detail == "table 100 already routes 198.18.0.0/24 otherwise; not modified");
  Change rule = find(out, "rail 0 (ens1f0np0): rule from 198.18.0.11/32");
  CHECK(rule.outcome == ChangeOutcome::unchanged);
  CHECK(rule.detail == "present at priority 32000");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: a kernel that refuses the route says why") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, false);  // down: the kernel answers ENETDOWN
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100)}), f.kernel);
  Change route = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(route.outcome == ChangeOutcome::failed);
  CHECK(route.detail == "ens1f0np0: add route 198.18.0.0/24 table 100: Network is down");
}

TEST_CASE("every rail applier over a shared-subnet VLAN plan, twice: the second run is all unchanged") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.add_link("ens2f0np0", 1500, false);
  add_conf(f.host, "ens1f0np0.200");
  add_conf(f.host, "ens2f0np0.200");
  Plan plan =
      plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100), rail(1, "ens2f0np0", 200, "198.18.0.12/24", 101)});
  auto first = run_all(plan, f.kernel);
  for (const auto& c : first) {
    CAPTURE(listing(first));
    CHECK(c.outcome != ChangeOutcome::failed);
  }
  CHECK(not_unchanged(run_all(plan, f.kernel)) == "");
}

TEST_CASE("rail.N.no_default_route: no default route in the main table via the rail or its NIC") {
  Node n;
  auto r = n.check("rail.0.no_default_route");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);  // the default via eno1 is none of the rail's business
  CHECK(r.expected == "no default route via ens0f0.200");
  CHECK(r.observed == "none via ens0f0.200");

  n.rtnl.route_entries.push_back({"default", "ens1f0.200", "", 100, ""});  // another table
  CHECK(n.check("rail.1.no_default_route").status == CheckStatus::pass);

  n.rtnl.route_entries.push_back({"default", "ens0f0.200", "", 254, ""});
  r = n.check("rail.0.no_default_route");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "default route via ens0f0.200");
  CHECK(contains(r.detail, "DHCP"));
  CHECK(n.check("rail.1.no_default_route").status == CheckStatus::pass);

  n.rtnl.route_entries.push_back({"default", "ens2f0", "", 254, ""});  // via the untagged parent
  r = n.check("rail.2.no_default_route");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "default route via ens2f0");

  n.rtnl.fail["routes"] = EPERM;
  r = n.check("rail.1.no_default_route");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}
