#include "sweep.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace railyard;

namespace {

// `sizes[i]` nodes in unit i, each with `rails` rails: node names u<i>n<j>.
std::vector<SweepUnit> units_of(const std::vector<int>& sizes, int rails) {
  std::vector<SweepUnit> out;
  for (std::size_t u = 0; u < sizes.size(); ++u) {
    SweepUnit s;
    s.name = "su-leaf" + std::to_string(u);
    for (int r = 0; r < rails; ++r) s.leaves.push_back("leaf" + std::to_string(u) + "-" + std::to_string(r));
    for (int n = 0; n < sizes[u]; ++n) s.nodes.push_back({"u" + std::to_string(u) + "n" + std::to_string(n), rails});
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, std::string> unit_by_node(const std::vector<SweepUnit>& units) {
  std::map<std::string, std::string> m;
  for (const auto& u : units)
    for (const auto& n : u.nodes) m[n.name] = u.name;
  return m;
}

// The results of `plan`: every test passes at 24 Gb/s, except those touching a NIC in `bad`
// ("node/rail"), which move no data, and the pairs in `flaky`, which fail alone.
std::vector<SweepResult> run(const std::vector<std::vector<SweepTest>>& rounds, const std::set<std::string>& bad,
                             const std::set<std::string>& flaky = {}) {
  std::vector<SweepResult> out;
  for (const auto& round : rounds)
    for (const auto& t : round) {
      SweepResult r{t, true, 24.0, "", "", "", ""};
      const std::string a = t.a + "/" + std::to_string(t.rail), b = t.b + "/" + std::to_string(t.rail);
      if (bad.count(a) || bad.count(b)) {
        r.ok = false;
        r.gbps = 0;
        r.error = "work completion error: retry exceeded";
      }
      if (flaky.count(t.a + "-" + t.b + "/" + std::to_string(t.rail))) {
        r.gbps = 6.0;
        r.b_counters = "rx_discards_phy +40";
      }
      out.push_back(r);
    }
  return out;
}

}  // namespace

TEST_CASE("sweep: each unit's round-robin on every rail, no node in two pairs of a round") {
  for (int units = 1; units <= 5; ++units)
    for (int size = 1; size <= 9; ++size)
      for (int rails : {1, 3}) {
        std::vector<int> sizes(static_cast<std::size_t>(units), size);
        sizes[0] = std::max(1, size - 1);  // one unit smaller than the rest
        const auto u = units_of(sizes, rails);
        const auto unit = unit_by_node(u);
        const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
        CAPTURE(units);
        CAPTURE(size);
        CAPTURE(rails);
        std::map<std::pair<std::string, std::string>, std::set<int>> pair_rails;
        std::map<std::string, std::set<std::string>> outside;  // node/rail → peers in other units
        std::size_t tests = 0;
        for (const auto& round : p.rounds) {
          std::map<std::string, std::string> partner;  // a node's one partner in this round
          for (const auto& t : round) {
            ++tests;
            CHECK(t.a != t.b);
            CHECK(natural_less(t.a, t.b));
            for (auto [x, y] : {std::pair{t.a, t.b}, std::pair{t.b, t.a}}) {
              auto [it, fresh] = partner.emplace(x, y);
              CHECK(it->second == y);  // in one pair only; its rails test side by side
            }
            CHECK(pair_rails[{t.a, t.b}].insert(t.rail).second);  // never the same test twice
            if (unit.at(t.a) != unit.at(t.b)) {
              outside[t.a + "/" + std::to_string(t.rail)].insert(t.b);
              outside[t.b + "/" + std::to_string(t.rail)].insert(t.a);
            }
          }
        }
        CHECK(p.tests == tests);
        CHECK(p.fabric_seconds() == doctest::Approx(4.0 * static_cast<double>(p.rounds.size())));
        // Every pair within a unit on every rail.
        for (const auto& su : u)
          for (std::size_t i = 0; i < su.nodes.size(); ++i)
            for (std::size_t j = i + 1; j < su.nodes.size(); ++j)
              CHECK(pair_rails[{su.nodes[i].name, su.nodes[j].name}].size() == static_cast<std::size_t>(rails));
        // Every node-rail meets at least two nodes outside its unit, where there are two.
        for (const auto& su : u)
          for (const auto& n : su.nodes)
            for (int r = 0; r < rails; ++r) {
              std::size_t others = 0;
              for (const auto& v : u)
                if (v.name != su.name) others += v.nodes.size();
              CHECK(outside[n.name + "/" + std::to_string(r)].size() >= std::min<std::size_t>(2, others));
            }
        // Equal units of an even size take their tournament's rounds and two more.
        if (units >= 2 && size % 2 == 0 && sizes[0] == size)
          CHECK(p.rounds.size() == static_cast<std::size_t>(size - 1 + 2));
        CHECK(sweep_plan_json(p) == sweep_plan_json(plan_sweep(u, SweepMode::full, 2)));  // deterministic
      }
}

TEST_CASE("sweep: equal units run side by side, then two rounds across units") {
  const auto u = units_of({32, 32, 32, 32}, 8);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  CHECK(p.rounds.size() == 33);
  CHECK(p.nodes == 128);
  CHECK(p.tests == (4 * 32 * 31 / 2 + 128) * 8);
  CHECK(p.fabric_seconds() == doctest::Approx(132));
  auto j = sweep_plan_json(p);
  CHECK(j["mode"] == "full");
  CHECK(j["tests"] == p.tests);
  CHECK(j["fabric_seconds"] == 132.0);
  CHECK(j["rounds"][0][0] == nlohmann::ordered_json{{"a", "u0n0"}, {"b", "u0n31"}, {"rail", 0}});
}

TEST_CASE("sweep: quick is each node with its ring neighbours and one node outside its unit") {
  for (int size = 1; size <= 9; ++size) {
    const auto u = units_of({size, size + 1, size}, 2);
    const auto unit = unit_by_node(u);
    const SweepPlan p = plan_sweep(u, SweepMode::quick, 2);
    CAPTURE(size);
    std::map<std::string, std::set<std::string>> inside, outside;
    for (const auto& round : p.rounds) {
      std::set<std::string> busy;
      std::set<std::pair<std::string, std::string>> pairs;
      for (const auto& t : round) {
        if (pairs.insert({t.a, t.b}).second) {
          CHECK(busy.insert(t.a).second);
          CHECK(busy.insert(t.b).second);
        }
        auto& m = unit.at(t.a) == unit.at(t.b) ? inside : outside;
        m[t.a].insert(t.b);
        m[t.b].insert(t.a);
      }
    }
    CHECK(p.rounds.size() <= 5);
    for (const auto& su : u)
      for (const auto& n : su.nodes) {
        CHECK(inside[n.name].size() == std::min<std::size_t>(2, su.nodes.size() - 1));
        CHECK(outside[n.name].size() >= 1);
      }
  }
}

TEST_CASE("sweep: nodes with fewer rails test those they have") {
  auto u = units_of({4}, 4);
  u[0].nodes[3].rails = 2;  // a storage server on the unit's first two leaves
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  for (const auto& round : p.rounds)
    for (const auto& t : round)
      if (t.a == "u0n3" || t.b == "u0n3") CHECK(t.rail < 2);
  CHECK(p.tests == 3 * 4 + 3 * 2);
}

TEST_CASE("sweep: one bad link is blamed, and nobody else") {
  const auto u = units_of({8, 8, 8}, 4);
  for (auto mode : {SweepMode::full, SweepMode::quick}) {
    CAPTURE(to_string(mode));
    const SweepPlan p = plan_sweep(u, mode, 2);
    const SweepBlame b = blame_sweep(u, run(p.rounds, {"u1n5/2"}));
    REQUIRE(b.culprits.size() == 1);
    CHECK(b.culprits[0].node == "u1n5");
    CHECK(b.culprits[0].rail == 2);
    CHECK(b.culprits[0].failed_peers == b.culprits[0].peers);
    CHECK(b.culprits[0].unit_median_gbps == doctest::Approx(24));
    CHECK(b.culprits[0].why.find("failed with " + std::to_string(b.culprits[0].peers) + " of ") == 0);
    CHECK(b.retests.empty());
    CHECK(b.failed_tests == b.culprits[0].peers);
  }
}

TEST_CASE("sweep: several bad links, in one unit and on one rail too, are each blamed") {
  const auto u = units_of({8, 8, 8}, 4);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  const std::set<std::string> bad{"u0n1/0", "u0n2/0", "u0n3/0", "u2n7/3", "u1n0/1"};
  const SweepBlame b = blame_sweep(u, run(p.rounds, bad));
  std::set<std::string> got;
  for (const auto& c : b.culprits) got.insert(c.node + "/" + std::to_string(c.rail));
  CHECK(got == bad);
  CHECK(b.retests.empty());
}

TEST_CASE("sweep: a pair that fails alone is retested against references before anyone is blamed") {
  const auto u = units_of({8, 8}, 2);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  const SweepBlame b = blame_sweep(u, run(p.rounds, {}, {"u0n2-u0n5/1"}));
  CHECK(b.culprits.empty());
  CHECK(b.failed_tests == 1);
  REQUIRE(b.retests.size() == 1);
  const SweepRetest& rt = b.retests[0];
  CHECK(rt.failed.test == SweepTest{"u0n2", "u0n5", 1});
  CHECK(rt.failed.b_counters == "rx_discards_phy +40");
  REQUIRE(rt.tests.size() == 2 * kRetestReferences);
  std::set<std::string> refs;
  for (const auto& t : rt.tests) {
    CHECK(t.rail == 1);
    CHECK((t.a == "u0n2" || t.a == "u0n5"));
    CHECK(t.b != "u0n2");
    CHECK(t.b != "u0n5");
    CHECK(t.b.rfind("u0", 0) == 0);  // the same unit's nodes first
    refs.insert(t.a + ">" + t.b);
  }
  CHECK(refs.size() == rt.tests.size());
  // The retests pack so that no NIC is in two at once.
  auto rounds = retest_rounds(b);
  std::size_t n = 0;
  for (const auto& round : rounds) {
    std::set<std::string> busy;
    for (const auto& t : round) {
      ++n;
      CHECK(busy.insert(t.a).second);
      CHECK(busy.insert(t.b).second);
    }
  }
  CHECK(n == rt.tests.size());

  SUBCASE("one node fails with its references too: it is blamed") {
    std::vector<SweepResult> second;
    for (const auto& t : rt.tests) {
      SweepResult r{t, true, 24, "", "", "", ""};
      if (t.a == "u0n5") r = {t, true, 7.5, "", "rx_discards_phy +31", "", ""};
      second.push_back(r);
    }
    const SweepBlame s = settle_retests(b, second);
    REQUIRE(s.culprits.size() == 1);
    CHECK(s.culprits[0].node == "u0n5");
    CHECK(s.culprits[0].rail == 1);
    CHECK(s.culprits[0].why.find("failed alone with a peer, then with 2 of 2 references") == 0);
    CHECK(s.culprits[0].why.find("rx_discards_phy +31") != std::string::npos);
    CHECK(s.pair_faults.empty());
  }
  SUBCASE("both pass with references: the pair is named, nobody drained") {
    std::vector<SweepResult> second;
    for (const auto& t : rt.tests) second.push_back({t, true, 24, "", "", "", ""});
    const SweepBlame s = settle_retests(b, second);
    CHECK(s.culprits.empty());
    REQUIRE(s.pair_faults.size() == 1);
    CHECK(s.pair_faults[0].test == SweepTest{"u0n2", "u0n5", 1});
  }
  SUBCASE("one retest fails, one passes: not enough to blame") {
    std::vector<SweepResult> second;
    bool first_of_n5 = true;
    for (const auto& t : rt.tests) {
      SweepResult r{t, true, 24, "", "", "", ""};
      if (t.a == "u0n5" && first_of_n5) {
        r.ok = false;
        first_of_n5 = false;
      }
      second.push_back(r);
    }
    const SweepBlame s = settle_retests(b, second);
    CHECK(s.culprits.empty());
    CHECK(s.pair_faults.size() == 1);
  }
}

TEST_CASE("sweep: a slow test or dirty counters fail a test that moved its data") {
  SweepResult r{{"a", "b", 0}, true, 24, "", "", "", ""};
  CHECK_FALSE(sweep_test_failed(r, 24));
  r.gbps = 19.0;  // below 80 % of the median
  CHECK(sweep_test_failed(r, 24));
  r.gbps = 20.0;
  CHECK_FALSE(sweep_test_failed(r, 24));
  r.a_counters = "out_of_sequence +3";
  CHECK(sweep_test_failed(r, 24));
  r = {{"a", "b", 0}, false, 0, "timeout", "", "", ""};
  CHECK(sweep_test_failed(r, 0));
}

TEST_CASE("sweep: operator references are retested against first") {
  const auto u = units_of({6}, 1);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  const SweepBlame b = blame_sweep(u, run(p.rounds, {}, {"u0n0-u0n1/0"}), {"u0n4"});
  REQUIRE(b.retests.size() == 1);
  CHECK(b.retests[0].tests[0].b == "u0n4");
  CHECK(b.retests[0].tests[kRetestReferences].b == "u0n4");
}

TEST_CASE("sweep: modes by name") {
  CHECK(parse_sweep_mode("full") == SweepMode::full);
  CHECK(parse_sweep_mode("quick") == SweepMode::quick);
  CHECK_FALSE(parse_sweep_mode("exhaustive"));
}

TEST_CASE("sweep: a worker's result is read only when every value is in range") {
  std::string why;
  auto r = sweep_result_from_json(
      nlohmann::json::parse(
          R"({"a": "gpu1", "b": "gpu2", "rail": 3, "ok": true, "gbps": 23.5, "b_counters": "rx_discards_phy +2"})"),
      why);
  REQUIRE(r);
  CHECK(r->test == SweepTest{"gpu1", "gpu2", 3});
  CHECK(r->b_counters == "rx_discards_phy +2");
  CHECK(to_json(*r).dump() ==
        R"({"a":"gpu1","b":"gpu2","rail":3,"ok":true,"gbps":23.5,"b_counters":"rx_discards_phy +2"})");
  auto bad = [&](const char* text) {
    why.clear();
    CHECK_FALSE(sweep_result_from_json(nlohmann::json::parse(text), why));
    return why;
  };
  CHECK(bad(R"({"a": "gpu1;rm", "b": "gpu2", "rail": 0, "ok": true, "gbps": 1})").find("\"a\": expected a host name") ==
        0);
  CHECK(bad(R"({"a": "gpu1", "b": "gpu1", "rail": 0, "ok": true, "gbps": 1})") == "\"a\" and \"b\" are the same host");
  CHECK(bad(R"({"a": "gpu1", "b": "gpu2", "rail": 64, "ok": true, "gbps": 1})") ==
        "\"rail\": expected an integer 0 to 63");
  CHECK(bad(R"({"a": "gpu1", "b": "gpu2", "rail": 0, "ok": 1, "gbps": 1})") == "\"ok\": expected true or false");
  CHECK(bad(R"({"a": "gpu1", "b": "gpu2", "rail": 0, "ok": true, "gbps": -1})") ==
        "\"gbps\": expected a number 0 to 10000");
  CHECK(bad(R"({"a": "gpu1", "b": "gpu2", "rail": 0, "ok": true, "gbps": 1, "error": "a\"b"})").find("\"error\"") == 0);
  CHECK(bad(R"([1])").find("expected an object") == 0);
}

TEST_CASE("sweep: sweep.json and Prometheus text name the culprit, its leaf and port, and the drain") {
  const auto u = units_of({6}, 2);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  const SweepBlame b = blame_sweep(u, run(p.rounds, {"u0n4/1"}, {"u0n0-u0n1/0"}));
  REQUIRE(b.culprits.size() == 1);
  const std::string reason = sweep_drain_reason(b.culprits[0]);
  CHECK(reason == "railyard: sweep rail.1 failed with 5 of 5 peers, 0.0 Gb/s (unit median 24.0)");
  std::vector<std::pair<std::string, std::vector<SweepPlace>>> places{
      {"u0n4", {{"leaf-a", "swp4"}, {"leaf-b", "swp4"}}}};
  auto j = sweep_json(b, SweepMode::full, false, places);
  CHECK(j["schema"] == 1);
  CHECK(j["settled"] == false);
  CHECK(j["culprits"][0]["leaf"] == "leaf-b");
  CHECK(j["culprits"][0]["port"] == "swp4");
  CHECK(j["culprits"][0]["drain_reason"] == reason);
  CHECK(j["retest_rounds"].size() == retest_rounds(b).size());
  CHECK_FALSE(j["retest_rounds"].empty());
  CHECK(sweep_json(b, SweepMode::full, true, {})["culprits"][0]["leaf"].is_null());
  // Every node-rail's cell: the culprit; its peers on that rail pass (their one failure is the
  // culprit's); the pair that failed alone is failed at both ends until its retests settle it.
  std::map<std::string, std::string> verdict;
  std::size_t cells = 0;
  for (const auto& n : j["nodes"])
    for (const auto& r : n["rails"]) {
      ++cells;
      verdict[n["node"].get<std::string>() + "/" + std::to_string(r["rail"].get<int>())] = r["verdict"];
    }
  CHECK(cells == 12);
  CHECK(verdict["u0n4/1"] == "culprit");
  CHECK(verdict["u0n2/1"] == "pass");
  CHECK(verdict["u0n0/0"] == "failed");
  CHECK(verdict["u0n1/0"] == "failed");
  CHECK(verdict["u0n2/0"] == "pass");
  CHECK(settle_retests(b, {}).nics.size() == b.nics.size());
  const std::string prom = sweep_prometheus_text(b, false);
  CHECK(prom.find("railyard_sweep_culprit{node=\"u0n4\",rail=\"1\"} 1\n") != std::string::npos);
  CHECK(prom.find("railyard_sweep_settled 0\n") != std::string::npos);
  SweepCulprit long_why = b.culprits[0];
  long_why.why = std::string(400, 'x');
  CHECK(sweep_drain_reason(long_why).size() == 200);
}

TEST_CASE("sweep: culprits are drained once, and only the sweep's own drains are resumed when it settles") {
  const auto u = units_of({6}, 2);
  const SweepPlan p = plan_sweep(u, SweepMode::full, 2);
  const SweepBlame b = blame_sweep(u, run(p.rounds, {"u0n4/1", "u0n4/0", "u0n2/0"}));
  auto state = [](const std::string& s, const std::string& reason) {
    SlurmNodeState st;
    st.known = true;
    st.state = s;
    st.drained = s.find("DRAIN") != std::string::npos;
    st.reason = reason;
    return st;
  };
  std::vector<std::string> names{"u0n0", "u0n1", "u0n2", "u0n3", "u0n4", "u0n5"};
  std::vector<SlurmNodeState> states{
      state("IDLE+DRAIN", "railyard: sweep rail.0 failed with 5 of 5 peers"),  // healed since
      state("IDLE+DRAIN", "PSU swap, ticket 4411"),                            // an operator's
      state("IDLE+DRAIN", "railyard: sweep rail.0 failed with 5 of 5 peers"),  // still bad
      state("IDLE+DRAIN", "railyard: rail.2.link"),                            // first boot's
      state("IDLE", ""),
      state("MIXED", "")};
  auto actions = sweep_slurm_actions(b, true, u, states, names);
  REQUIRE(actions.size() == 2);
  CHECK(actions[0].node == "u0n4");
  CHECK(actions[0].drain);
  CHECK(actions[0].reason.rfind("railyard: sweep rail.0,rail.1 failed with ", 0) == 0);
  CHECK(actions[1].node == "u0n0");
  CHECK_FALSE(actions[1].drain);
  // Not settled: drains only.
  actions = sweep_slurm_actions(b, false, u, states, names);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].drain);
  // A culprit the controller does not know is not drained.
  states[4].known = false;
  CHECK(sweep_slurm_actions(b, false, u, states, names).empty());
  CHECK(drained_by_sweep(states[0]));
  CHECK_FALSE(drained_by_sweep(states[3]));
}

TEST_CASE("sweep: the plan reads back as --plan wrote it, and a plan no schedule makes is refused") {
  for (auto mode : {SweepMode::full, SweepMode::quick}) {
    const SweepPlan p = plan_sweep(units_of({5, 4}, 2), mode, 1.5);
    std::string why;
    auto back = sweep_plan_from_json(nlohmann::json::parse(sweep_plan_json(p).dump()), why);
    REQUIRE_MESSAGE(back, why);
    CHECK(back->mode == mode);
    CHECK(back->seconds_per_test == 1.5);
    CHECK(back->rounds == p.rounds);
    CHECK(back->tests == p.tests);
    CHECK(back->nodes == p.nodes);
  }
  auto bad = [](const char* text) {
    std::string why;
    CHECK_FALSE(sweep_plan_from_json(nlohmann::json::parse(text), why));
    return why;
  };
  CHECK(bad(R"({"mode": "all", "seconds_per_test": 2, "rounds": []})") == "\"mode\": expected full or quick");
  CHECK(bad(R"({"mode": "full", "seconds_per_test": 0, "rounds": []})") ==
        "\"seconds_per_test\": expected a number 0.1 to 600");
  CHECK(bad(R"({"mode": "full", "seconds_per_test": 2, "rounds": [[{"a": "n1", "b": "n2", "rail": 0}, )"
            R"({"a": "n1", "b": "n3", "rail": 1}]]})") ==
        "rounds[0][1]: n1 is in two pairs of one round (with n2 and n3)");
  CHECK(bad(R"({"mode": "full", "seconds_per_test": 2, "rounds": [[{"a": "n1", "b": "n2", "rail": 0, "x": 1}]]})") ==
        "rounds[0][0]: expected {\"a\", \"b\", \"rail\"} only");
  CHECK(bad(R"({"mode": "full", "seconds_per_test": 2, "rounds": [[{"a": "n1/..", "b": "n2", "rail": 0}]]})")
            .find("rounds[0][0]: \"a\": expected a host name") == 0);
}

TEST_CASE("sweep: each node's writes: a in the first half of the round, b in the second, every rail at once") {
  const SweepPlan p = plan_sweep(units_of({6}, 2), SweepMode::full, 2);
  for (const auto& node : {"u0n0", "u0n3"}) {
    CAPTURE(node);
    auto slots = sweep_worker_slots(p, node);
    CHECK(slots.size() == 5 * 2);  // five peers, two rails
    std::set<std::pair<std::string, int>> seen;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const SweepSlot& s = slots[i];
      CHECK(s.peer == (s.as_a ? s.test.b : s.test.a));
      CHECK((s.as_a ? s.test.a : s.test.b) == node);
      CHECK(s.offset_s == doctest::Approx(static_cast<double>(s.round) * 4 + (s.as_a ? 0 : 2)));
      if (i) CHECK(s.offset_s >= slots[i - 1].offset_s);
      seen.insert({s.peer, s.test.rail});
    }
    CHECK(seen.size() == 10);
    // The peer writes back in the half this node does not: a NIC sends in one test at a time.
    for (const auto& s : slots) {
      auto theirs = sweep_worker_slots(p, s.peer);
      auto back = std::find_if(theirs.begin(), theirs.end(), [&](const SweepSlot& t) { return t.test == s.test; });
      REQUIRE(back != theirs.end());
      CHECK(back->offset_s == doctest::Approx(s.offset_s + (s.as_a ? 2 : -2)));
    }
  }
  CHECK(sweep_worker_slots(p, "elsewhere").empty());
}

TEST_CASE("sweep: a test's two ways merge into one result; a way with no result fails it") {
  const SweepTest t{"gpu1", "gpu2", 3};
  SweepResult ab{t, true, 24.0, "", "", "", "gpu1"}, ba{t, true, 21.5, "", "", "rx_discards_phy +7", "gpu2"};
  auto m = merge_sweep_ways({ab, ba});
  REQUIRE(m.size() == 1);
  CHECK(m[0].ok);
  CHECK(m[0].gbps == 21.5);
  CHECK(m[0].b_counters == "rx_discards_phy +7");
  CHECK(m[0].from.empty());
  ba.ok = false;
  ba.error = "work completion: retry exceeded";
  m = merge_sweep_ways({ba, ab});
  REQUIRE(m.size() == 1);
  CHECK_FALSE(m[0].ok);
  CHECK(m[0].error == "gpu2: work completion: retry exceeded");
  m = merge_sweep_ways({ab});
  REQUIRE(m.size() == 1);
  CHECK_FALSE(m[0].ok);
  CHECK(m[0].error == "no result from gpu2's write");
  // Results that hold both ways (the blame's own tests, older workers) pass as they are.
  SweepResult whole{SweepTest{"gpu3", "gpu4", 0}, true, 20.0, "", "", "", ""};
  m = merge_sweep_ways({whole, ab, ba});
  REQUIRE(m.size() == 2);
  CHECK(m[0].test == whole.test);
  CHECK(m[1].test == t);
  std::string why;
  auto from = nlohmann::json::parse(R"({"a": "gpu1", "b": "gpu2", "rail": 0, "from": "gpu1", "ok": true, "gbps": 1})");
  auto r = sweep_result_from_json(from, why);
  REQUIRE(r);
  CHECK(r->from == "gpu1");
  CHECK(to_json(*r).dump() == R"({"a":"gpu1","b":"gpu2","rail":0,"from":"gpu1","ok":true,"gbps":1.0})");
  from["from"] = "gpu9";
  CHECK_FALSE(sweep_result_from_json(from, why));
  CHECK(why == "\"from\": expected the writing node, \"a\" or \"b\" of the test");
}

TEST_CASE("sweep plan: a job's port and rail addresses go out and come back, bad ones refused") {
  SweepPlan p;
  p.rounds = {{{"gpu1", "gpu2", 0}, {"gpu1", "gpu2", 1}}};
  p.port = 18516;
  p.addresses = {{"gpu1", {"198.18.0.1", "198.18.1.1"}}, {"gpu2", {"198.18.0.2", ""}}};
  auto j = sweep_plan_json(p);
  CHECK(j["port"] == 18516);
  CHECK(j["addresses"]["gpu2"] == nlohmann::json::array({"198.18.0.2", ""}));
  std::string why;
  auto back = sweep_plan_from_json(nlohmann::json::parse(j.dump()), why);
  REQUIRE(back);
  CHECK(back->port == 18516);
  CHECK(back->addresses == p.addresses);
  // A plan without them (--plan with no inventory) prints neither.
  SweepPlan bare = p;
  bare.port = 0;
  bare.addresses.clear();
  CHECK_FALSE(sweep_plan_json(bare).contains("port"));
  CHECK_FALSE(sweep_plan_json(bare).contains("addresses"));
  for (auto [key, value, expected] : {
           std::tuple{"port", R"(70000)", "\"port\": expected a TCP port 1 to 65535"},
           std::tuple{"addresses", R"({"gpu1": ["198.18.0.300"]})",
                      "addresses.gpu1[0]: expected an IPv4 address such as 198.18.0.1, or \"\""},
           std::tuple{"addresses", R"({"gpu 1": []})", ""},
           std::tuple{"addresses", R"([])", "\"addresses\": expected an object, each node's rail addresses"},
       }) {
    auto bad = nlohmann::json::parse(j.dump());
    bad[key] = nlohmann::json::parse(value);
    why.clear();
    CHECK_FALSE(sweep_plan_from_json(bad, why));
    CAPTURE(value);
    if (std::string(expected).empty()) CHECK(why.rfind("addresses.gpu 1: ", 0) == 0);
    else CHECK(why == expected);
  }
}

TEST_CASE("sweep note: a worker's own words made fit for its results file") {
  CHECK(sweep_note("retry exceeded") == "retry exceeded");
  CHECK(sweep_note("open \"mlx5_0\": C:\\x\n2.0 \xc2\xb5s") == "open 'mlx5_0': C:/x 2.0 s");
  std::string long_text(500, 'x');
  std::string fit = sweep_note(long_text);
  CHECK(fit.size() == 200);
  CHECK(fit.substr(197) == "...");
  CHECK(sweep_note(std::string(200, 'y')) == std::string(200, 'y'));
  std::string why;
  auto j = nlohmann::json::parse(R"({"a": "gpu1", "b": "gpu2", "rail": 0, "ok": false, "gbps": 0})");
  j["error"] = sweep_note("open \"x\"\\" + long_text);
  CHECK(sweep_result_from_json(j, why));
}
