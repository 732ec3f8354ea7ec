// PFC (objects/pfc.cc): applied by read-modify-write of ieee_pfc, and read back by verify.
#include <doctest/doctest.h>

#include "support/dcb_rig.h"
#include "support/verify_node.h"

TEST_CASE("PFC: set on the physical interfaces, keeping delay and mbc; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.pfcs["ens1f0np0"].mbc = 1;
  const Plan plan = two_rails();

  std::vector<Change> out = run(apply_pfc, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): PFC");
  CHECK(out[0].outcome == ChangeOutcome::changed);
  CHECK(out[0].before == "0x00");
  CHECK(out[0].after == "0x08");
  CHECK(out[0].detail.find("delay 32") != std::string::npos);
  CHECK(out[1].object == "rail 1 (ens2f0np0): PFC");
  CHECK(out[1].outcome == ChangeOutcome::changed);
  CHECK(dcb.writes == std::vector<std::string>{"set_pfc ens1f0np0 pfc_cap 8 pfc_en 0x08 mbc 1 delay 32",
                                               "set_pfc ens2f0np0 pfc_cap 8 pfc_en 0x08 mbc 0 delay 32"});
  CHECK(dcb.pfcs["ens1f0np0"].delay == 32);
  CHECK(ethtool.calls == 0);

  std::vector<Change> again = run(apply_pfc, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  for (const Change& c : again) {
    CHECK(c.outcome == ChangeOutcome::unchanged);
    CHECK(c.before == "0x08");
  }
  CHECK(dcb.writes.size() == 2);
}

TEST_CASE("PFC: a port already lossless on priority 3 is left alone, whatever its pfc_cap") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.pfcs["ens1f0np0"] = IeeePfc{4, 0x08, 0, 0};
  std::vector<Change> out = run(apply_pfc, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == ChangeOutcome::unchanged);
  CHECK(out[1].outcome == ChangeOutcome::changed);
  CHECK(dcb.writes.size() == 1);
}

TEST_CASE("PFC: a device without DCB is unsupported, with the kernel's reason, and nothing is written") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.fail["pfc ens2f0np0"] = EOPNOTSUPP;
  std::vector<Change> out = run(apply_pfc, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == ChangeOutcome::changed);
  CHECK(out[1].outcome == ChangeOutcome::unsupported);
  CHECK(out[1].detail == "ens2f0np0: RTM_GETDCB IEEE PFC: Operation not supported");
  CHECK(out[1].after == "0x08");
  CHECK(dcb.writes.size() == 1);
}

TEST_CASE("PFC: a refused SET fails the rail; one that changes nothing fails on read-back") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  SUBCASE("refused") {
    dcb.fail["set_pfc"] = EINVAL;
    std::vector<Change> out = run(apply_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == ChangeOutcome::failed);
    CHECK(out[0].before == "0x00");
    CHECK(out[0].detail == "ens1f0np0: RTM_SETDCB IEEE PFC: Invalid argument");
  }
  SUBCASE("accepted but not applied") {
    dcb.ignore_set_pfc = true;
    std::vector<Change> out = run(apply_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == ChangeOutcome::failed);
    CHECK(out[0].detail == "ens1f0np0: PFC set, but pfc_en reads back 0x00");
  }
  SUBCASE("unsupported on SET") {
    dcb.fail["set_pfc ens1f0np0"] = EOPNOTSUPP;
    std::vector<Change> out = run(apply_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == ChangeOutcome::unsupported);
    CHECK(out[0].detail == "ens1f0np0: RTM_SETDCB IEEE PFC: Operation not supported");
    CHECK(out[1].outcome == ChangeOutcome::changed);
  }
}

TEST_CASE("a recipe without PFC: no DCB, no storm prevention, not a single call") {
  FakeDcb dcb;  // no ports at all: any call would answer ENODEV and show as a Change
  FakeEthtool ethtool;
  Plan plan = two_rails();
  for (RailPlan& r : plan.rails) r.pfc_enable = 0;
  for (auto applier : {apply_pfc, apply_dscp_app, apply_storm}) CHECK(run(applier, plan, dcb, ethtool).empty());
  CHECK(dcb.calls == 0);
  CHECK(ethtool.calls == 0);
}

TEST_CASE("rail.N.pfc: the lossless priority as applied") {
  Node n;
  auto r = n.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.required);
  CHECK(r.expected == "priority 3 lossless");
  CHECK(r.observed == "pfc_en 0x08");

  n.dcb.pfcs["ens0f0"].pfc_en = 0;  // reset by DCBX firmware
  r = n.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pfc_en 0x00");
  CHECK(contains(r.detail, "DCBX"));

  n.dcb.pfcs["ens0f0"].pfc_en = 0x18;  // an extra lossless priority is not what was applied
  r = n.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pfc_en 0x18");
}

TEST_CASE("rail.N.pfc: a device without DCB is unsupported, which fails the node only when PFC is required") {
  Node n;
  n.dcb.fail["pfc"] = EOPNOTSUPP;
  auto r = n.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "unsupported");
  CHECK(contains(r.detail, "ens0f0"));
  CHECK(r.required);
  CHECK(r.failing());
  CHECK_FALSE(node_passes({r}));

  Node b([](Recipe& rc) { rc.fabric.pfc = Requirement::best_effort; });
  b.dcb.fail["pfc"] = EOPNOTSUPP;
  r = b.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.expected == "priority 3 lossless (best-effort)");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK_FALSE(r.required);
  CHECK_FALSE(r.failing());
  CHECK(node_passes({r}));

  b.dcb.fail.clear();
  b.dcb.pfcs["ens0f0"].pfc_en = 0;
  r = b.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::warn);  // best-effort: differs, but never fails the node
  CHECK(r.observed == "pfc_en 0x00");
}

TEST_CASE("rail.N.pfc: a missing interface (ENODEV) is a failure, not unsupported") {
  Node n;
  n.dcb.pfcs.erase("ens1f0");
  auto r = n.check("rail.1.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}

TEST_CASE("rail.N.pfc: without PFC in the recipe no PFC, trust, DSCP map, storm or pause check is planned") {
  Node n([](Recipe& rc) { rc.fabric.pfc = Requirement::off; });
  for (const auto& c : n.plan.checks) {
    CAPTURE(c.id.name());
    for (const char* what : {".pfc", ".trust", ".dscp_map", ".storm_prevention", ".pause_storm"})
      CHECK_FALSE(c.id.name().ends_with(what));
  }
}
