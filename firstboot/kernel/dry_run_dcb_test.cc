// The dry-run DCB and ethtool (kernel/dry_run_dcb.cc) under the appliers: reads pass, writes are
// logged.
#include <doctest/doctest.h>

#include "support/dcb_rig.h"

TEST_CASE("dry run: reads go through, writes are logged, the appliers report what would change") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.tables["ens1f0np0"] = planned_apps(rail(0, "x"));
  dcb.fail["pfc ens2f0np0"] = EOPNOTSUPP;
  std::vector<std::string> log;
  DryRunDcb dry_dcb(dcb, log);
  DryRunEthtool dry_ethtool(ethtool, log);
  const Plan plan = two_rails();

  std::vector<Change> pfc = run(apply_pfc, plan, dry_dcb, dry_ethtool);
  std::vector<Change> app = run(apply_dscp_app, plan, dry_dcb, dry_ethtool);
  std::vector<Change> storm = run(apply_storm, plan, dry_dcb, dry_ethtool);
  REQUIRE(pfc.size() == 2);
  CHECK(pfc[0].outcome == ChangeOutcome::changed);  // the read-back sees the logged write
  CHECK(pfc[1].outcome == ChangeOutcome::unsupported);
  REQUIRE(app.size() == 2);
  CHECK(app[0].outcome == ChangeOutcome::unchanged);
  CHECK(app[1].outcome == ChangeOutcome::changed);
  REQUIRE(storm.size() == 2);
  CHECK(storm[0].outcome == ChangeOutcome::changed);
  CHECK(dcb.writes.empty());
  CHECK(ethtool.writes.empty());
  CHECK(dcb.pfcs["ens1f0np0"].pfc_en == 0);
  REQUIRE(log.size() == 4);
  CHECK(log[0] == "would set PFC on ens1f0np0: pfc_en 0x08");
  CHECK(log[1].rfind("would add DCB app entries on ens2f0np0: dscp 0 prio 0, dscp 1 prio 0,", 0) == 0);
  CHECK(log[2] == "would set pfc-prevention-tout on ens1f0np0: 100");
  CHECK(log[3] == "would set pfc-prevention-tout on ens2f0np0: 100");

  // The dry run's view of the app table: stale entries replaced, like the real add_apps.
  dcb.tables["ens2f0np0"] = {{5, 0, 26}};
  DryRunDcb fresh(dcb, log);
  REQUIRE(fresh.add_apps("ens2f0np0", {{5, 3, 26}}).ok());
  Outcome<std::vector<DcbApp>> seen = fresh.apps("ens2f0np0");
  REQUIRE(seen.ok());
  CHECK(*seen == std::vector<DcbApp>{{5, 3, 26}});
  CHECK(dcb.tables["ens2f0np0"] == std::vector<DcbApp>{{5, 0, 26}});
}
