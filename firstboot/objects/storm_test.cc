// PFC storms (objects/storm.cc): the storm prevention tunable, and the pause counters verify
// samples.
#include <doctest/doctest.h>

#include "support/dcb_rig.h"
#include "support/verify_node.h"

TEST_CASE("storm prevention: set to the plan's timeout on the physical interface; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  const Plan plan = two_rails();
  std::vector<Change> out = run(apply_storm, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): PFC storm prevention");
  CHECK(out[0].outcome == ChangeOutcome::changed);
  CHECK(out[0].before == "65535 ms");
  CHECK(out[0].after == "100 ms");
  CHECK(ethtool.writes ==
        std::vector<std::string>{"set_tunable_u16 ens1f0np0 3 100", "set_tunable_u16 ens2f0np0 3 100"});
  CHECK(dcb.calls == 0);

  std::vector<Change> again = run(apply_storm, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  for (const Change& c : again) CHECK(c.outcome == ChangeOutcome::unchanged);
  CHECK(ethtool.writes.size() == 2);
}

TEST_CASE("storm prevention: unsupported, refused, and clamped by the driver") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  ethtool.tunables.erase({"ens1f0np0", kStorm});  // no such tunable: EOPNOTSUPP
  ethtool.fail["set_tunable_u16 ens2f0np0"] = EINVAL;
  std::vector<Change> out = run(apply_storm, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == ChangeOutcome::unsupported);
  CHECK(out[0].detail == "ens1f0np0: ETHTOOL_GTUNABLE 3: Operation not supported");
  CHECK(out[1].outcome == ChangeOutcome::failed);
  CHECK(out[1].before == "65535 ms");
  CHECK(out[1].detail == "ens2f0np0: ETHTOOL_STUNABLE 3: Invalid argument");

  ethtool.fail.clear();
  ethtool.clamp = 80;
  std::vector<Change> clamped = run(apply_storm, two_rails(), dcb, ethtool);
  REQUIRE(clamped.size() == 2);
  CHECK(clamped[1].outcome == ChangeOutcome::failed);
  CHECK(clamped[1].detail == "ens2f0np0: storm prevention set, but reads back 80 ms");
}

TEST_CASE("rail.N.storm_prevention: the PFC storm prevention timeout tunable") {
  Node n;
  auto r = n.check("rail.0.storm_prevention");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "100 ms");
  CHECK(r.observed == "100 ms");

  n.ethtool.tunables[{"ens0f0", kEthtoolPfcPreventionTout}] = 0;
  r = n.check("rail.0.storm_prevention");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0 ms");

  n.ethtool.tunables.erase({"ens0f0", kEthtoolPfcPreventionTout});  // the driver lacks it
  r = n.check("rail.0.storm_prevention");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "unsupported");
}

TEST_CASE("rail.N.pause_storm: two samples pause_sample_ms apart, under the threshold") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 10}, {"tx_prio3_pause", 5}},
                                 {{"rx_prio3_pause", 40}, {"tx_prio3_pause", 50}}};
  auto r = n.check("rail.0.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "< 1000 pause frames/s");
  CHECK(r.observed == "rx 300/s, tx 450/s");  // 30 and 45 frames in 0.1 s
  CHECK(n.ethtool.reads["ens0f0"] == 2);
  // The recipe's interval, not the default 1 s, on the verify's clock.
  CHECK(n.clock.sleeps == std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(100)});
}

TEST_CASE("rail.N.pause_storm: a NIC sending pauses fails naming tx; one being paused names rx") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 0}, {"tx_prio3_pause", 0}},
                                 {{"rx_prio3_pause", 10}, {"tx_prio3_pause", 500}}};
  auto r = n.check("rail.0.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "rx 100/s, tx 5000/s");
  CHECK(contains(r.detail, "this NIC is sending a pause storm"));

  n.ethtool.samples["ens1f0"] = {{{"rx_prio3_pause", 1000}, {"tx_prio3_pause", 7}},
                                 {{"rx_prio3_pause", 1100}, {"tx_prio3_pause", 7}}};
  r = n.check("rail.1.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "rx 1000/s, tx 0/s");  // exactly the threshold is a storm
  CHECK(contains(r.detail, "the switch pauses this NIC"));
}

TEST_CASE("rail.N.pause_storm: without per-priority pause counters the check is unsupported") {
  Node n;
  n.ethtool.statistics["ens2f0"] = {{"rx_packets", 1}, {"rx_prio0_pause", 0}, {"tx_prio0_pause", 0}};
  auto started = std::chrono::steady_clock::now();
  auto r = n.check("rail.2.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "no rx_prio3_pause/tx_prio3_pause counters");
  CHECK(contains(r.detail, "per priority"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(100));  // no wait for nothing

  n.ethtool.statistics.erase("ens2f0");  // no statistics at all
  r = n.check("rail.2.pause_storm");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.required);  // PFC required: the node fails
  CHECK_FALSE(node_passes({r}));
}

// Counters present in the first sample and gone from the second fail the check; nothing throws.
TEST_CASE("rail.N.pause_storm: counters that vanish between the samples do not throw") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 0}, {"tx_prio3_pause", 0}}, {{"rx_packets", 5}}};
  CheckResult r;
  CHECK_NOTHROW(r = n.check("rail.0.pause_storm"));
  CHECK(r.status != CheckStatus::pass);
}

// Sampled one rail after the other, N rails took N intervals (a second each by default);
// verify samples every rail's counters first, so they share one.
TEST_CASE("rail.N.pause_storm: every rail's counters sampled together, the rails sharing one interval") {
  Node n;
  for (const char* port : {"ens0f0", "ens1f0", "ens2f0"})
    n.ethtool.samples[port] = {{{"rx_prio3_pause", 0}, {"tx_prio3_pause", 0}},
                               {{"rx_prio3_pause", 10}, {"tx_prio3_pause", 20}}};
  std::vector<CheckResult> all = n.verify_all();
  int storms = 0;
  for (const auto& r : all) {
    if (r.id.kind != CheckKind::rail_pause_storm) continue;
    ++storms;
    CAPTURE(text(r));
    CHECK(r.status == CheckStatus::pass);
    CHECK(r.observed == "rx 100/s, tx 200/s");  // over the 0.1 s between the two samples
  }
  CHECK(storms == 3);
  for (const char* port : {"ens0f0", "ens1f0", "ens2f0"}) CHECK(n.ethtool.reads[port] == 2);
  // One wait of the interval in all, not one per rail.
  CHECK(n.clock.sleeps == std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(100)});
}
