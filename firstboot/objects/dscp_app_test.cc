// The DSCP app table (objects/dscp_app.cc): entries added where they differ, RoCE's entry verified.
#include <doctest/doctest.h>

#include "support/dcb_rig.h"
#include "support/verify_node.h"

TEST_CASE("DSCP map: an empty table gets all 64 entries; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  const Plan plan = two_rails();
  std::vector<Change> out = run(apply_dscp_app, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): DSCP to priority");
  CHECK(out[0].outcome == ChangeOutcome::changed);
  CHECK(out[0].before == "0/64 DSCP entries as planned");
  CHECK(out[0].after == "64/64 DSCP entries as planned");
  CHECK(dcb.tables["ens1f0np0"] == planned_apps(plan.rails[0]));
  CHECK(priority_of(dcb.tables["ens2f0np0"], 26) == 3);
  CHECK(priority_of(dcb.tables["ens2f0np0"], 48) == 6);
  CHECK(dcb.tables.count("ens1f0np0.200") == 0);

  std::vector<Change> again = run(apply_dscp_app, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  CHECK(again[0].outcome == ChangeOutcome::unchanged);
  CHECK(again[0].before == "64/64 DSCP entries as planned");
  CHECK(again[1].outcome == ChangeOutcome::unchanged);
  CHECK(dcb.writes == std::vector<std::string>{"add_apps ens1f0np0 64", "add_apps ens2f0np0 64"});
}

TEST_CASE("DSCP map: only differing entries are added; other selectors are left alone") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  const Plan plan = two_rails();
  for (const char* ifname : {"ens1f0np0", "ens2f0np0"}) dcb.tables[ifname] = planned_apps(plan.rails[0]);
  std::vector<DcbApp>& t0 = dcb.tables["ens1f0np0"];
  std::erase(t0, DcbApp{5, 3, 26});
  t0.push_back({5, 0, 26});      // DSCP 26 mapped elsewhere
  t0.push_back({1, 4, 0x8906});  // an ethertype entry (FCoE)
  std::vector<DcbApp>& t1 = dcb.tables["ens2f0np0"];
  t1.push_back({5, 0, 48});  // DSCP 48 mapped twice: planned priority 6 and a stale 0

  std::vector<Change> out = run(apply_dscp_app, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == ChangeOutcome::changed);
  CHECK(out[0].before == "63/64 DSCP entries as planned");
  CHECK(out[0].detail == "added dscp 26→3");
  CHECK(out[1].outcome == ChangeOutcome::changed);
  CHECK(out[1].detail == "added dscp 48→6");
  CHECK(dcb.writes == std::vector<std::string>{"add_apps ens1f0np0 1", "add_apps ens2f0np0 1"});
  CHECK(priority_of(t0, 26) == 3);
  CHECK(priority_of(t1, 48) == 6);
  CHECK(std::find(t0.begin(), t0.end(), DcbApp{1, 4, 0x8906}) != t0.end());

  std::vector<Change> again = run(apply_dscp_app, plan, dcb, ethtool);
  for (const Change& c : again) CHECK(c.outcome == ChangeOutcome::unchanged);
}

TEST_CASE("DSCP map: unsupported and refused") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.fail["apps ens1f0np0"] = EOPNOTSUPP;
  dcb.fail["add_apps ens2f0np0"] = EPERM;
  std::vector<Change> out = run(apply_dscp_app, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == ChangeOutcome::unsupported);
  CHECK(out[0].detail == "ens1f0np0: RTM_GETDCB IEEE APP: Operation not supported");
  CHECK(out[1].outcome == ChangeOutcome::failed);
  CHECK(out[1].before == "0/64 DSCP entries as planned");
  CHECK(out[1].detail == "ens2f0np0: RTM_SETDCB IEEE APP: Operation not permitted");
  CHECK(dcb.writes.empty());
}

TEST_CASE("dcb_app: PCP trust leaves the DSCP map alone (a DSCP entry would switch mlx5 to DSCP trust)") {
  Plan plan = two_rails();
  for (RailPlan& r : plan.rails) r.trust = Trust::pcp;
  FakeDcb dcb;
  FakeEthtool ethtool;
  CHECK(run(apply_dscp_app, plan, dcb, ethtool).empty());
}

TEST_CASE("rail.N.dscp_map: RoCE's DSCP mapped to the lossless priority") {
  Node n;
  auto r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "DSCP 26 → priority 3");

  n.dcb.tables["ens2f0"] = {DcbApp{5, 0, 26}, DcbApp{5, 6, 48}};  // DSCP 26 on priority 0
  r = n.check("rail.2.dscp_map");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "2 app entries, none DSCP 26 → 3");

  n.dcb.tables["ens2f0"] = {DcbApp{1, 3, 0x8915}};  // an EtherType entry, not DSCP
  r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::fail);

  n.dcb.fail["apps"] = EOPNOTSUPP;
  r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.failing());
}
