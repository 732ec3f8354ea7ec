// The DCB and storm appliers (dcb_pfc.cc, dcb_app.cc, storm.cc) and the dry-run DCB and
// ethtool (dry_run_dcb.cc) against in-memory fakes.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "apply.h"
#include "dry_run_dcb.h"
#include "support/fake_dcb.h"

using namespace railyard;
using railyard::test::DcbKernel;
using railyard::test::FakeDcb;
using railyard::test::FakeEthtool;

namespace {

constexpr std::uint32_t kStorm = kEthtoolPfcPreventionTout;

RailPlan rail(int index, const std::string& ifname, std::optional<int> vlan = std::nullopt) {
  RailPlan r;
  r.index = index;
  r.ifname = ifname;
  r.vlan = vlan;
  r.netdev = vlan ? ifname + "." + std::to_string(*vlan) : ifname;
  r.mtu = 9000;
  r.pfc_enable = 1 << 3;
  r.trust = "dscp";
  r.dscp_to_priority.resize(64);
  for (int d = 0; d < 64; ++d) r.dscp_to_priority[static_cast<std::size_t>(d)] = d >> 3;
  r.dscp_to_priority[26] = 3;
  r.storm_timeout_ms = 100;
  return r;
}

// Two rails, the first VLAN-tagged: DCB and ethtool must use the physical interfaces.
Plan two_rails() {
  Plan p;
  p.recipe = "test";
  p.management = "eno1";
  p.rails = {rail(0, "ens1f0np0", 200), rail(1, "ens2f0np0")};
  return p;
}

// Both rails' ports with DCB, PFC off, the NIC's cable-length delay set, no app entries,
// storm prevention at the driver's default (auto).
void ports(FakeDcb& dcb, FakeEthtool& ethtool) {
  for (const char* ifname : {"ens1f0np0", "ens2f0np0"}) {
    dcb.pfcs[ifname] = IeeePfc{8, 0x00, 0, 32};
    ethtool.tunables[{ifname, kStorm}] = 0xffff;
  }
}

std::vector<Change> run(void (*applier)(const Plan&, Kernel&, std::vector<Change>&), const Plan& plan, Dcb& dcb,
                        Ethtool& ethtool) {
  DcbKernel k(dcb, ethtool);
  std::vector<Change> out;
  applier(plan, k.kernel, out);
  return out;
}

std::vector<DcbApp> planned_apps(const RailPlan& r) {
  std::vector<DcbApp> apps;
  for (std::size_t d = 0; d < r.dscp_to_priority.size(); ++d)
    apps.push_back({5, static_cast<std::uint8_t>(r.dscp_to_priority[d]), static_cast<std::uint16_t>(d)});
  return apps;
}

int priority_of(const std::vector<DcbApp>& table, int dscp) {
  int prio = -1, n = 0;
  for (const DcbApp& a : table)
    if (a.selector == 5 && a.protocol == dscp) prio = a.priority, ++n;
  return n == 1 ? prio : -n;  // -n: several entries
}

}  // namespace

TEST_CASE("PFC: set on the physical interfaces, keeping delay and mbc; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.pfcs["ens1f0np0"].mbc = 1;
  const Plan plan = two_rails();

  std::vector<Change> out = run(apply_dcb_pfc, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): PFC");
  CHECK(out[0].outcome == Outcome::changed);
  CHECK(out[0].before == "0x00");
  CHECK(out[0].after == "0x08");
  CHECK(out[0].detail.find("delay 32") != std::string::npos);
  CHECK(out[1].object == "rail 1 (ens2f0np0): PFC");
  CHECK(out[1].outcome == Outcome::changed);
  CHECK(dcb.writes == std::vector<std::string>{"set_pfc ens1f0np0 pfc_cap 8 pfc_en 0x08 mbc 1 delay 32",
                                               "set_pfc ens2f0np0 pfc_cap 8 pfc_en 0x08 mbc 0 delay 32"});
  CHECK(dcb.pfcs["ens1f0np0"].delay == 32);
  CHECK(ethtool.calls == 0);

  std::vector<Change> again = run(apply_dcb_pfc, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  for (const Change& c : again) {
    CHECK(c.outcome == Outcome::unchanged);
    CHECK(c.before == "0x08");
  }
  CHECK(dcb.writes.size() == 2);
}

TEST_CASE("PFC: a port already lossless on priority 3 is left alone, whatever its pfc_cap") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.pfcs["ens1f0np0"] = IeeePfc{4, 0x08, 0, 0};
  std::vector<Change> out = run(apply_dcb_pfc, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == Outcome::unchanged);
  CHECK(out[1].outcome == Outcome::changed);
  CHECK(dcb.writes.size() == 1);
}

TEST_CASE("PFC: a device without DCB is unsupported, with the kernel's reason, and nothing is written") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.fail["pfc ens2f0np0"] = EOPNOTSUPP;
  std::vector<Change> out = run(apply_dcb_pfc, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == Outcome::changed);
  CHECK(out[1].outcome == Outcome::unsupported);
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
    std::vector<Change> out = run(apply_dcb_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == Outcome::failed);
    CHECK(out[0].before == "0x00");
    CHECK(out[0].detail == "ens1f0np0: RTM_SETDCB IEEE PFC: Invalid argument");
  }
  SUBCASE("accepted but not applied") {
    dcb.ignore_set_pfc = true;
    std::vector<Change> out = run(apply_dcb_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == Outcome::failed);
    CHECK(out[0].detail == "ens1f0np0: PFC set, but pfc_en reads back 0x00");
  }
  SUBCASE("unsupported on SET") {
    dcb.fail["set_pfc ens1f0np0"] = EOPNOTSUPP;
    std::vector<Change> out = run(apply_dcb_pfc, two_rails(), dcb, ethtool);
    REQUIRE(out.size() == 2);
    CHECK(out[0].outcome == Outcome::unsupported);
    CHECK(out[0].detail == "ens1f0np0: RTM_SETDCB IEEE PFC: Operation not supported");
    CHECK(out[1].outcome == Outcome::changed);
  }
}

TEST_CASE("DSCP map: an empty table gets all 64 entries; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  const Plan plan = two_rails();
  std::vector<Change> out = run(apply_dcb_app, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): DSCP to priority");
  CHECK(out[0].outcome == Outcome::changed);
  CHECK(out[0].before == "0/64 DSCP entries as planned");
  CHECK(out[0].after == "64/64 DSCP entries as planned");
  CHECK(dcb.tables["ens1f0np0"] == planned_apps(plan.rails[0]));
  CHECK(priority_of(dcb.tables["ens2f0np0"], 26) == 3);
  CHECK(priority_of(dcb.tables["ens2f0np0"], 48) == 6);
  CHECK(dcb.tables.count("ens1f0np0.200") == 0);

  std::vector<Change> again = run(apply_dcb_app, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  CHECK(again[0].outcome == Outcome::unchanged);
  CHECK(again[0].before == "64/64 DSCP entries as planned");
  CHECK(again[1].outcome == Outcome::unchanged);
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
  t0.push_back({5, 0, 26});       // DSCP 26 mapped elsewhere
  t0.push_back({1, 4, 0x8906});   // an ethertype entry (FCoE)
  std::vector<DcbApp>& t1 = dcb.tables["ens2f0np0"];
  t1.push_back({5, 0, 48});  // DSCP 48 mapped twice: planned priority 6 and a stale 0

  std::vector<Change> out = run(apply_dcb_app, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == Outcome::changed);
  CHECK(out[0].before == "63/64 DSCP entries as planned");
  CHECK(out[0].detail == "added dscp 26→3");
  CHECK(out[1].outcome == Outcome::changed);
  CHECK(out[1].detail == "added dscp 48→6");
  CHECK(dcb.writes == std::vector<std::string>{"add_apps ens1f0np0 1", "add_apps ens2f0np0 1"});
  CHECK(priority_of(t0, 26) == 3);
  CHECK(priority_of(t1, 48) == 6);
  CHECK(std::find(t0.begin(), t0.end(), DcbApp{1, 4, 0x8906}) != t0.end());

  std::vector<Change> again = run(apply_dcb_app, plan, dcb, ethtool);
  for (const Change& c : again) CHECK(c.outcome == Outcome::unchanged);
}

TEST_CASE("DSCP map: unsupported and refused") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  dcb.fail["apps ens1f0np0"] = EOPNOTSUPP;
  dcb.fail["add_apps ens2f0np0"] = EPERM;
  std::vector<Change> out = run(apply_dcb_app, two_rails(), dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].outcome == Outcome::unsupported);
  CHECK(out[0].detail == "ens1f0np0: RTM_GETDCB IEEE APP: Operation not supported");
  CHECK(out[1].outcome == Outcome::failed);
  CHECK(out[1].before == "0/64 DSCP entries as planned");
  CHECK(out[1].detail == "ens2f0np0: RTM_SETDCB IEEE APP: Operation not permitted");
  CHECK(dcb.writes.empty());
}

TEST_CASE("storm prevention: set to the plan's timeout on the physical interface; a second run changes nothing") {
  FakeDcb dcb;
  FakeEthtool ethtool;
  ports(dcb, ethtool);
  const Plan plan = two_rails();
  std::vector<Change> out = run(apply_storm, plan, dcb, ethtool);
  REQUIRE(out.size() == 2);
  CHECK(out[0].object == "rail 0 (ens1f0np0): PFC storm prevention");
  CHECK(out[0].outcome == Outcome::changed);
  CHECK(out[0].before == "65535 ms");
  CHECK(out[0].after == "100 ms");
  CHECK(ethtool.writes ==
        std::vector<std::string>{"set_tunable_u16 ens1f0np0 3 100", "set_tunable_u16 ens2f0np0 3 100"});
  CHECK(dcb.calls == 0);

  std::vector<Change> again = run(apply_storm, plan, dcb, ethtool);
  REQUIRE(again.size() == 2);
  for (const Change& c : again) CHECK(c.outcome == Outcome::unchanged);
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
  CHECK(out[0].outcome == Outcome::unsupported);
  CHECK(out[0].detail == "ens1f0np0: ETHTOOL_GTUNABLE 3: Operation not supported");
  CHECK(out[1].outcome == Outcome::failed);
  CHECK(out[1].before == "65535 ms");
  CHECK(out[1].detail == "ens2f0np0: ETHTOOL_STUNABLE 3: Invalid argument");

  ethtool.fail.clear();
  ethtool.clamp = 80;
  std::vector<Change> clamped = run(apply_storm, two_rails(), dcb, ethtool);
  REQUIRE(clamped.size() == 2);
  CHECK(clamped[1].outcome == Outcome::failed);
  CHECK(clamped[1].detail == "ens2f0np0: storm prevention set, but reads back 80 ms");
}

TEST_CASE("a recipe without PFC: no DCB, no storm prevention, not a single call") {
  FakeDcb dcb;  // no ports at all: any call would answer ENODEV and show as a Change
  FakeEthtool ethtool;
  Plan plan = two_rails();
  for (RailPlan& r : plan.rails) r.pfc_enable = 0;
  for (auto applier : {apply_dcb_pfc, apply_dcb_app, apply_storm}) CHECK(run(applier, plan, dcb, ethtool).empty());
  CHECK(dcb.calls == 0);
  CHECK(ethtool.calls == 0);
}

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

  std::vector<Change> pfc = run(apply_dcb_pfc, plan, dry_dcb, dry_ethtool);
  std::vector<Change> app = run(apply_dcb_app, plan, dry_dcb, dry_ethtool);
  std::vector<Change> storm = run(apply_storm, plan, dry_dcb, dry_ethtool);
  REQUIRE(pfc.size() == 2);
  CHECK(pfc[0].outcome == Outcome::changed);  // the read-back sees the logged write
  CHECK(pfc[1].outcome == Outcome::unsupported);
  REQUIRE(app.size() == 2);
  CHECK(app[0].outcome == Outcome::unchanged);
  CHECK(app[1].outcome == Outcome::changed);
  REQUIRE(storm.size() == 2);
  CHECK(storm[0].outcome == Outcome::changed);
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
  Expected<std::vector<DcbApp>> seen = fresh.apps("ens2f0np0");
  REQUIRE(seen.ok());
  CHECK(*seen.value == std::vector<DcbApp>{{5, 3, 26}});
  CHECK(dcb.tables["ens2f0np0"] == std::vector<DcbApp>{{5, 0, 26}});
}

TEST_CASE("dcb_app: PCP trust leaves the DSCP map alone (a DSCP entry would switch mlx5 to DSCP trust)") {
  Plan plan = two_rails();
  for (RailPlan& r : plan.rails) r.trust = "pcp";
  FakeDcb dcb;
  FakeEthtool ethtool;
  CHECK(run(apply_dcb_app, plan, dcb, ethtool).empty());
}
