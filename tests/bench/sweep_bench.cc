// The fleet sweep's schedule and blame at scale, by simulation (ci/bench-sweep.sh): NODES
// nodes × 8 rails in 32-node units, planned full and quick; the coverage each node-rail gets;
// then, for 1, 2, 5 and 20 bad links at once (random node-rails that fail every test), over
// TRIALS random fleets with a few pairs that fail alone (flaky: slow, with discards), the
// share of trials in which the blame, after the retests against references, names exactly
// the bad links and drains no one else; and the time plan + blame takes.
// Usage: railyard_sweep_bench NODES [TRIALS] (prints one line per figure)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "sweep.h"

using namespace railyard;

namespace {

constexpr int kRails = 8;
constexpr int kUnitSize = 32;

std::vector<SweepUnit> fleet(int nodes) {
  std::vector<SweepUnit> units;
  for (int n = 0; n < nodes; ++n) {
    if (n % kUnitSize == 0) {
      units.emplace_back();
      units.back().name = "su-leaf" + std::to_string(n / kUnitSize);
      for (int r = 0; r < kRails; ++r)
        units.back().leaves.push_back("leaf" + std::to_string(n / kUnitSize) + "-" + std::to_string(r));
    }
    char name[32];
    std::snprintf(name, sizeof name, "gpu%04d", n + 1);
    units.back().nodes.push_back({name, kRails});
  }
  return units;
}

std::string nic(const std::string& node, int rail) { return node + "/" + std::to_string(rail); }

SweepResult measure(const SweepTest& t, const std::set<std::string>& bad, const std::set<std::string>& flaky) {
  SweepResult r{t, true, 24.0, "", "", "", ""};
  if (bad.count(nic(t.a, t.rail)) || bad.count(nic(t.b, t.rail))) {
    r.ok = false;
    r.gbps = 0;
    r.error = "retry exceeded";
  } else if (flaky.count(nic(t.a, t.rail) + "-" + t.b)) {
    r.gbps = 5;
    r.b_counters = "rx_discards_phy +17";
  }
  return r;
}

double ms_since(std::chrono::steady_clock::time_point s) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NODES [TRIALS]\n", argv[0]);
    return 2;
  }
  const int nodes = std::atoi(argv[1]);
  const int trials = argc > 2 ? std::atoi(argv[2]) : 20;
  const auto units = fleet(nodes);
  std::map<std::string, std::string> unit_of;
  for (const auto& u : units)
    for (const auto& n : u.nodes) unit_of[n.name] = u.name;

  for (auto mode : {SweepMode::full, SweepMode::quick}) {
    auto s = std::chrono::steady_clock::now();
    const SweepPlan p = plan_sweep(units, mode, 2);
    const double plan_ms = ms_since(s);
    std::map<std::string, std::set<std::string>> peers, outside;
    for (const auto& round : p.rounds)
      for (const auto& t : round) {
        peers[nic(t.a, t.rail)].insert(t.b);
        peers[nic(t.b, t.rail)].insert(t.a);
        if (unit_of[t.a] != unit_of[t.b]) {
          outside[nic(t.a, t.rail)].insert(t.b);
          outside[nic(t.b, t.rail)].insert(t.a);
        }
      }
    std::size_t least = SIZE_MAX, least_outside = SIZE_MAX;
    for (const auto& u : units)
      for (const auto& n : u.nodes)
        for (int r = 0; r < kRails; ++r) {
          least = std::min(least, peers[nic(n.name, r)].size());
          least_outside = std::min(least_outside, outside[nic(n.name, r)].size());
        }
    std::printf(
        "%s, %d nodes x %d rails in %zu units: %zu rounds, %zu tests, %.0f s of fabric time at 2 s per test "
        "each way (%.1f min); every node-rail has >= %zu peers, >= %zu outside its unit; planned in %.1f ms\n",
        to_string(mode), nodes, kRails, units.size(), p.rounds.size(), p.tests, p.fabric_seconds(),
        p.fabric_seconds() / 60, least, least_outside, plan_ms);
  }

  const SweepPlan plan = plan_sweep(units, SweepMode::full, 2);
  std::mt19937 rng(7);
  for (int k : {1, 2, 5, 20}) {
    int exact = 0;
    std::size_t retests = 0, pair_faults = 0, wrong = 0, missed = 0;
    for (int trial = 0; trial < trials; ++trial) {
      std::set<std::string> bad;
      while (static_cast<int>(bad.size()) < k) {
        const auto& u = units[rng() % units.size()];
        bad.insert(nic(u.nodes[rng() % u.nodes.size()].name, static_cast<int>(rng() % kRails)));
      }
      // About one test in 2,000 fails alone: slow, with discards on one side.
      std::set<std::string> flaky;
      std::vector<SweepResult> results;
      results.reserve(plan.tests);
      for (const auto& round : plan.rounds)
        for (const auto& t : round) {
          if (rng() % 2000 == 0) flaky.insert(nic(t.a, t.rail) + "-" + t.b);
          results.push_back(measure(t, bad, flaky));
        }
      const SweepBlame first = blame_sweep(units, results);
      std::vector<SweepResult> second;
      for (const auto& round : retest_rounds(first))
        for (const auto& t : round) second.push_back(measure(t, bad, {}));
      const SweepBlame b = settle_retests(first, second);
      retests += second.size();
      pair_faults += b.pair_faults.size();
      std::set<std::string> got;
      for (const auto& c : b.culprits) got.insert(nic(c.node, c.rail));
      for (const auto& g : got) wrong += !bad.count(g);
      for (const auto& x : bad) missed += !got.count(x);
      exact += got == bad;
    }
    std::printf(
        "blame, %d bad link(s) at once, %d trials: exactly the bad links in %d (%.0f %%); %zu drained wrongly, %zu "
        "missed; %.1f retests and %.1f pair faults (flaky pairs) per trial\n",
        k, trials, exact, 100.0 * exact / trials, wrong, missed, static_cast<double>(retests) / trials,
        static_cast<double>(pair_faults) / trials);
  }

  // Plan + blame, the pure part of a sweep's analysis: the results between them are the
  // workers' in a real sweep, made here outside the clock.
  std::vector<double> times, plan_times, blame_times;
  for (int run = 0; run < 5; ++run) {
    auto s = std::chrono::steady_clock::now();
    const SweepPlan p = plan_sweep(units, SweepMode::full, 2);
    const double plan_ms = ms_since(s);
    std::set<std::string> bad{nic(units[0].nodes[3].name, 5)};
    std::vector<SweepResult> results;
    results.reserve(p.tests);
    for (const auto& round : p.rounds)
      for (const auto& t : round) results.push_back(measure(t, bad, {}));
    s = std::chrono::steady_clock::now();
    const SweepBlame b = blame_sweep(units, results);
    const double blame_ms = ms_since(s);
    if (b.culprits.size() != 1) return 1;
    plan_times.push_back(plan_ms);
    blame_times.push_back(blame_ms);
    times.push_back(plan_ms + blame_ms);
  }
  for (auto* v : {&times, &plan_times, &blame_times}) std::sort(v->begin(), v->end());
  std::printf(
      "plan + blame, %d nodes, full: median %.0f ms over 5 runs (plan %.0f ms, blame %.0f ms; target: under 1000 ms)\n",
      nodes, times[2], plan_times[2], blame_times[2]);
  return 0;
}
