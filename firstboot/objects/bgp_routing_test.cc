// Routed rails (objects/routing.cc): bgpd brought up within the plan's bound, each rail's table
// sending the fabric to its own leaf, and the checks rail.N.bgp, bgp_prefixes and route.
#include <doctest/doctest.h>

#include "support/fake_clock.h"
#include "support/rtnl_rig.h"
#include "support/verify_node.h"
#include "objects/result.h"

using railyard::test::FakeClock;
using railyard::test::verify_node::FakeDataPath;

namespace {

// bgpd as a script: each sessions() call answers the next entry (the last one stays).
class FakeBgp : public Bgp {
 public:
  std::vector<Outcome<std::vector<BgpSession>>> answers;
  Status start_status = success();
  int started = 0, restarted = 0, asked = 0;
  Status start(bool restart) override {
    ++started;
    restarted += restart;
    return start_status;
  }
  Outcome<std::vector<BgpSession>> sessions() override {
    std::size_t i = std::min(static_cast<std::size_t>(asked++), answers.size() - 1);
    return answers[i];
  }
};

BgpSession up(const std::string& ifname, const std::string& peer, long long prefixes = 3) {
  BgpSession s;
  s.interface = ifname;
  s.state = "Established";
  s.peer = peer;
  s.remote_as = 65100;
  s.prefixes = prefixes;
  s.up_ms = 4000;
  return s;
}

BgpSession down(const std::string& ifname, const std::string& state, const std::string& peer, const std::string& error,
                const std::string& notification = "") {
  BgpSession s;
  s.interface = ifname;
  s.state = state;
  s.peer = peer;
  s.last_error = error;
  s.notification = notification;
  return s;
}

Plan routed_plan() {
  Plan p = plan_of(
      {rail(0, "rail0", std::nullopt, "198.18.0.11/32", 100), rail(1, "rail1", std::nullopt, "198.18.1.11/32", 101)});
  BgpPlan b;
  b.asn = 4200000011;
  b.router_id = "198.18.0.11";
  b.fabric_prefixes = {"198.18.0.0/16"};
  b.session_wait_s = 10;
  b.min_prefixes = 1;
  p.bgp = b;
  p.rails[0].route_probes = {"198.18.0.1", "198.18.0.100"};
  p.rails[1].route_probes = {"198.18.0.1"};
  return p;
}

CheckResult evaluate(void (*fn)(const VerifyContext&, const RailPlan&, CheckResult&), const Plan& plan, int rail,
                     Kernel& kernel, const BgpBringUp* bgp) {
  Inventory now;
  FakeDataPath rdma;
  FakeClock clock;
  VerifyContext ctx{plan, now, kernel, rdma, clock, nullptr, bgp};
  CheckResult r;
  r.id = CheckId::rail(CheckKind::rail_bgp, rail);
  fn(ctx, plan.rails[static_cast<std::size_t>(rail)], r);
  return r;
}

}  // namespace

TEST_CASE("bgp bring-up: started once, polled every 500 ms until every rail is Established with routes") {
  FakeBgp bgp;
  bgp.answers = {Outcome<std::vector<BgpSession>>::fail(ECONNREFUSED, "vtysh: bgpd is not running"),
                 std::vector<BgpSession>{up("rail0", "fe80::1"), down("rail1", "Active", "", "")},
                 std::vector<BgpSession>{up("rail0", "fe80::1"), up("rail1", "fe80::2", 0)},
                 std::vector<BgpSession>{up("rail0", "fe80::1"), up("rail1", "fe80::2")}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock);
  CHECK(bgp.started == 1);
  CHECK(bgp.restarted == 1);  // the configuration was just written
  CHECK(bgp.asked == 4);
  CHECK(b.all_up);
  CHECK(b.error.empty());
  CHECK(b.waited_ms == 1500);
  CHECK(clock.sleeps == std::vector<std::chrono::milliseconds>(3, std::chrono::milliseconds(500)));
}

TEST_CASE("bgp bring-up: a configuration already in place leaves a running bgpd and its sessions alone") {
  FakeBgp bgp;
  bgp.answers = {std::vector<BgpSession>{up("rail0", "fe80::1"), up("rail1", "fe80::2")}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock, false);
  CHECK(bgp.started == 1);
  CHECK(bgp.restarted == 0);
  CHECK(b.all_up);
  CHECK(b.waited_ms == 0);
}

TEST_CASE("bgp bring-up: the leaf's NOTIFICATION is kept when the session cycles past it") {
  FakeBgp bgp;
  bgp.answers = {
      std::vector<BgpSession>{up("rail0", "fe80::1"), down("rail1", "Idle", "fe80::2", "BGP Notification received",
                                                           "OPEN Message Error/Bad Peer AS")},
      std::vector<BgpSession>{up("rail0", "fe80::1"), down("rail1", "Active", "fe80::2", "Waiting for peer OPEN")}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock);
  REQUIRE(b.sessions.size() == 2);
  CHECK(b.sessions[1].state == "Active");
  CHECK(b.sessions[1].notification == "OPEN Message Error/Bad Peer AS");
}

TEST_CASE("bgp bring-up: the node's own NOTIFICATION after the leaf's refusal does not hide it") {
  FakeBgp bgp;
  bgp.answers = {
      std::vector<BgpSession>{up("rail0", "fe80::1"), down("rail1", "Idle", "fe80::2", "BGP Notification received",
                                                           "OPEN Message Error/Bad Peer AS")},
      std::vector<BgpSession>{up("rail0", "fe80::1"),
                              down("rail1", "Idle", "fe80::2",
                                   "BGP Notification send: Neighbor Events Error/Receive Unexpected Message in "
                                   "OpenSent State")}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock);
  REQUIRE(b.sessions.size() == 2);
  CHECK(b.sessions[1].notification == "OPEN Message Error/Bad Peer AS");
  CHECK(b.sessions[1].last_error.find("BGP Notification send") == 0);
}

TEST_CASE("bgp bring-up: a session that never comes stops the wait at session_wait_s, not later") {
  FakeBgp bgp;
  bgp.answers = {
      std::vector<BgpSession>{up("rail0", "fe80::1"), down("rail1", "Active", "fe80::2", "Waiting for peer OPEN")}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock);
  CHECK_FALSE(b.all_up);
  CHECK(b.waited_ms == 10000);
  CHECK(b.sessions.size() == 2);
}

TEST_CASE("bgp bring-up: bgpd that cannot be started is an error at once; layer-2 plans start nothing") {
  FakeBgp bgp;
  bgp.start_status = Status::fail(EIO, "systemctl restart frr.service: exit 5");
  bgp.answers = {std::vector<BgpSession>{}};
  FakeClock clock;
  BgpBringUp b = bring_up_bgp(routed_plan(), bgp, clock);
  CHECK(b.error == "systemctl restart frr.service: exit 5");
  CHECK(bgp.asked == 0);
  Plan l2 = routed_plan();
  l2.bgp.reset();
  FakeBgp idle;
  bring_up_bgp(l2, idle, clock);
  CHECK(idle.started == 0);
}

TEST_CASE("rail tables: the fabric via each rail's own leaf, once; a rule per rail address; no subnet route") {
  FakeKernel f;
  f.rtnl.add_link("rail0", 9000, true);
  f.rtnl.add_link("rail1", 9000, true);
  f.rtnl.addrs["rail0"] = {"198.18.0.11/32"};
  f.rtnl.addrs["rail1"] = {"198.18.1.11/32"};
  Plan plan = routed_plan();
  auto routing = run(apply_routing, plan, f.kernel);
  CHECK(find(routing, "rail 0 (rail0): rule from 198.18.0.11/32").after ==
        "from 198.18.0.11/32 lookup 100 priority 1000");
  CHECK(f.rtnl.route_entries.empty());  // nothing before the leaves are known
  std::vector<BgpSession> sessions = {up("rail0", "fe80::1"), up("rail1", "fe80::2")};
  std::vector<Change> out;
  apply_rail_tables(plan, sessions, f.kernel, out);
  Change r1 = find(out, "rail 1 (rail1): route 198.18.0.0/16 table 101");
  CHECK(r1.outcome == ChangeOutcome::changed);
  CHECK(r1.after == "198.18.0.0/16 via fe80::2 dev rail1 table 101");
  REQUIRE(f.rtnl.route_entries.size() == 2);
  CHECK(f.rtnl.route_entries[1].via == "fe80::2");
  out.clear();
  apply_rail_tables(plan, sessions, f.kernel, out);
  CHECK(not_unchanged(out) == "");

  // A leaf that answered no router advertisement: that rail's table cannot be made.
  out.clear();
  apply_rail_tables(plan, {up("rail0", "fe80::1"), down("rail1", "Idle", "", "")}, f.kernel, out);
  Change none = find(out, "rail 1 (rail1): table 101");
  CHECK(none.outcome == ChangeOutcome::failed);
  CHECK(none.detail.find("link-local address is not known") != std::string::npos);
}

TEST_CASE("rail.N.bgp: Established passes with the leaf's AS; each failure says why and what to look at") {
  FakeKernel f;
  Plan plan = routed_plan();
  BgpBringUp b;
  b.sessions = {up("rail0", "fe80::1"),
                down("rail1", "Idle", "fe80::2", "BGP Notification received", "OPEN Message Error/Bad Peer AS")};
  b.waited_ms = 10000;
  CheckResult r0 = evaluate(verify_bgp_session, plan, 0, f.kernel, &b);
  CHECK(r0.status == CheckStatus::pass);
  CHECK(r0.observed == "Established with AS 65100 at fe80::1, up 4 s");
  CheckResult r1 = evaluate(verify_bgp_session, plan, 1, f.kernel, &b);
  CHECK(r1.status == CheckStatus::fail);
  CHECK(r1.observed == "Idle with the leaf at fe80::2");
  CHECK(r1.detail.find("Bad Peer AS") != std::string::npos);
  CHECK(r1.detail.find("refused this node's AS 4200000011") != std::string::npos);
  CHECK(r1.detail.find("waited 10 s") != std::string::npos);

  b.sessions[1] = down("rail1", "Active", "", "");
  r1 = evaluate(verify_bgp_session, plan, 1, f.kernel, &b);
  CHECK(r1.detail.find("no router advertisement") != std::string::npos);

  b.sessions.pop_back();
  r1 = evaluate(verify_bgp_session, plan, 1, f.kernel, &b);
  CHECK(r1.observed == "no session on rail1");

  BgpBringUp dead;
  dead.error = "systemctl restart frr.service: exit 5";
  r0 = evaluate(verify_bgp_session, plan, 0, f.kernel, &dead);
  CHECK(r0.status == CheckStatus::fail);
  CHECK(r0.detail == dead.error);
}

TEST_CASE("rail.N.bgp_prefixes: at least min_prefixes accepted from the leaf") {
  FakeKernel f;
  Plan plan = routed_plan();
  plan.bgp->min_prefixes = 2;
  BgpBringUp b;
  b.sessions = {up("rail0", "fe80::1", 3), up("rail1", "fe80::2", 1)};
  CHECK(evaluate(verify_bgp_prefixes, plan, 0, f.kernel, &b).observed == "3 received");
  CheckResult r1 = evaluate(verify_bgp_prefixes, plan, 1, f.kernel, &b);
  CHECK(r1.status == CheckStatus::fail);
  CHECK(r1.observed == "1 received");
}

TEST_CASE("rail.N.route: from the rail's address the fabric leaves by that rail, whatever BGP spread") {
  FakeKernel f;
  f.rtnl.add_link("rail0", 9000, true);
  f.rtnl.add_link("rail1", 9000, true);
  // BGP's routes in the main table prefer rail1 for everything (one of the ECMP paths).
  f.rtnl.route_entries = {{"198.18.0.0/16", "rail1", "", 254, "fe80::2"}};
  Plan plan = routed_plan();
  CheckResult r0 = evaluate(verify_rail_route, plan, 0, f.kernel, nullptr);
  CHECK(r0.status == CheckStatus::fail);
  CHECK(r0.observed == "198.18.0.1 via rail1 (table 254), 198.18.0.100 via rail1 (table 254)");
  CHECK(r0.detail.find("would cross to another rail") != std::string::npos);

  f.rtnl.route_entries.push_back({"198.18.0.0/16", "rail0", "", 100, "fe80::1"});
  f.rtnl.rule_entries.push_back({1000, "198.18.0.11/32", 100});
  r0 = evaluate(verify_rail_route, plan, 0, f.kernel, nullptr);
  CHECK(r0.status == CheckStatus::pass);
  CHECK(r0.observed == "198.18.0.1 via rail0 (table 100), 198.18.0.100 via rail0 (table 100)");
}
