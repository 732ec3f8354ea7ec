#include "sweep.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "net.h"
#include "text.h"

namespace railyard {

std::optional<SweepMode> parse_sweep_mode(const std::string& s) {
  if (s == "full") return SweepMode::full;
  if (s == "quick") return SweepMode::quick;
  return std::nullopt;
}

const char* to_string(SweepMode m) { return m == SweepMode::full ? "full" : "quick"; }

double SweepPlan::fabric_seconds() const { return static_cast<double>(rounds.size()) * 2 * seconds_per_test; }

std::vector<SweepUnit> sweep_units(const Topology& t, const std::vector<NodeFabric>& nodes) {
  std::unordered_map<std::string, int> rails;
  for (const auto& n : nodes) rails[n.node] = static_cast<int>(n.rails.size());
  std::vector<SweepUnit> out;
  for (const auto& u : t.units) {
    SweepUnit s{u.name, u.leaves, {}};
    for (const auto& n : u.nodes) {
      auto it = rails.find(n);
      int r = it == rails.end() ? static_cast<int>(u.leaves.size()) : it->second;
      s.nodes.push_back({n, std::min(r, static_cast<int>(u.leaves.size()))});
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

using Pair = std::pair<std::size_t, std::size_t>;

// The circle method: n players (indices 0..n-1) in n-1 rounds (n even) or n (odd, one sits
// out each round), every pair exactly once.
std::vector<std::vector<Pair>> round_robin(std::size_t n) {
  std::vector<std::vector<Pair>> rounds;
  if (n < 2) return rounds;
  const std::size_t m = n % 2 ? n + 1 : n;  // player m-1 is the bye when n is odd
  for (std::size_t r = 0; r + 1 < m; ++r) {
    std::vector<Pair> round;
    auto add = [&](std::size_t a, std::size_t b) {
      if (a < n && b < n) round.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(m - 1, r);
    for (std::size_t i = 1; i < m / 2; ++i) add((r + i) % (m - 1), (r + m - 1 - i) % (m - 1));
    rounds.push_back(std::move(round));
  }
  return rounds;
}

// Rounds filled first-fit: a node pair goes into the first round where neither node is busy.
class Packer {
 public:
  explicit Packer(std::size_t nodes) : nodes_(nodes) {}
  void place(std::size_t a, std::size_t b, std::vector<SweepTest> tests, std::size_t from = 0) {
    std::size_t r = from;
    for (; r < busy_.size(); ++r)
      if (!busy_[r][a] && !busy_[r][b]) break;
    if (r == busy_.size()) {
      busy_.emplace_back(nodes_, false);
      rounds_.emplace_back();
    }
    busy_[r][a] = busy_[r][b] = true;
    for (auto& t : tests) rounds_[r].push_back(std::move(t));
  }
  std::vector<std::vector<SweepTest>> take() { return std::move(rounds_); }

 private:
  std::size_t nodes_;
  std::vector<std::vector<bool>> busy_;
  std::vector<std::vector<SweepTest>> rounds_;
};

struct Indexed {
  std::vector<const SweepNode*> node;          // by global index
  std::vector<std::vector<std::size_t>> unit;  // each unit's nodes' global indices
};

Indexed index_units(const std::vector<SweepUnit>& units) {
  Indexed ix;
  for (const auto& u : units) {
    ix.unit.emplace_back();
    for (const auto& n : u.nodes) {
      ix.unit.back().push_back(ix.node.size());
      ix.node.push_back(&n);
    }
  }
  return ix;
}

std::vector<SweepTest> pair_tests(const SweepNode& a, const SweepNode& b) {
  std::vector<SweepTest> t;
  const auto& [x, y] = natural_less(b.name, a.name) ? std::pair{&b, &a} : std::pair{&a, &b};
  for (int r = 0; r < std::min(a.rails, b.rails); ++r) t.push_back({x->name, y->name, r});
  return t;
}

// The pairs across units: units meet in rounds of their own round-robin (shifting the partner
// node once the units' rounds are used up), node i of one with node i of the other (wrapping
// in the smaller), until every node has met `peers` nodes outside its unit or no new pair
// comes.
std::vector<Pair> cross_pairs(const Indexed& ix, std::size_t peers) {
  std::vector<Pair> out;
  const std::size_t m = ix.unit.size();
  if (m < 2) return out;
  std::set<Pair> seen;
  std::vector<std::size_t> met(ix.node.size(), 0);
  auto satisfied = [&] {
    for (const auto& u : ix.unit)
      for (std::size_t g : u)
        if (met[g] < peers) return false;
    return true;
  };
  const auto unit_rounds = round_robin(m);
  std::size_t largest = 0;
  for (const auto& u : ix.unit) largest = std::max(largest, u.size());
  for (std::size_t t = 0; !satisfied() && t < unit_rounds.size() * std::max<std::size_t>(largest, 1); ++t) {
    const std::size_t shift = t / unit_rounds.size();
    bool added = false;
    for (const auto& [ua, ub] : unit_rounds[t % unit_rounds.size()]) {
      const auto& A = ix.unit[ua];
      const auto& B = ix.unit[ub];
      if (A.empty() || B.empty()) continue;
      for (std::size_t i = 0; i < std::max(A.size(), B.size()); ++i) {
        std::size_t a = A[i % A.size()], b = B[(i + shift) % B.size()];
        Pair p{std::min(a, b), std::max(a, b)};
        if (!seen.insert(p).second) continue;
        if (met[a] >= peers && met[b] >= peers) continue;
        ++met[a];
        ++met[b];
        out.push_back(p);
        added = true;
      }
    }
    if (!added && shift > 0 && t % unit_rounds.size() == unit_rounds.size() - 1) break;
  }
  return out;
}

}  // namespace

SweepPlan plan_sweep(const std::vector<SweepUnit>& units, SweepMode mode, double seconds_per_test) {
  SweepPlan plan;
  plan.mode = mode;
  plan.seconds_per_test = seconds_per_test;
  const Indexed ix = index_units(units);
  plan.nodes = ix.node.size();
  Packer packer(ix.node.size());
  auto place = [&](std::size_t a, std::size_t b) { packer.place(a, b, pair_tests(*ix.node[a], *ix.node[b])); };
  for (const auto& members : ix.unit) {
    if (mode == SweepMode::full) {
      // Every unit's tournament starts in round 0: the units test side by side.
      for (const auto& round : round_robin(members.size()))
        for (const auto& [i, j] : round) place(members[i], members[j]);
    } else {
      // The ring: each node with the next, the last with the first (two or three rounds).
      const std::size_t n = members.size();
      for (std::size_t i = 0; n >= 2 && i < (n == 2 ? 1 : n); i += 2) place(members[i], members[(i + 1) % n]);
      for (std::size_t i = 1; n >= 3 && i < n; i += 2) place(members[i], members[(i + 1) % n]);
    }
  }
  for (const auto& [a, b] : cross_pairs(ix, mode == SweepMode::full ? 2 : 1)) place(a, b);
  plan.rounds = packer.take();
  for (const auto& r : plan.rounds) plan.tests += r.size();
  return plan;
}

nlohmann::ordered_json sweep_plan_json(const SweepPlan& p) {
  nlohmann::ordered_json j;
  j["mode"] = to_string(p.mode);
  j["seconds_per_test"] = p.seconds_per_test;
  j["nodes"] = p.nodes;
  auto rounds = nlohmann::ordered_json::array();
  for (const auto& r : p.rounds) {
    auto round = nlohmann::ordered_json::array();
    for (const auto& t : r) round.push_back({{"a", t.a}, {"b", t.b}, {"rail", t.rail}});
    rounds.push_back(std::move(round));
  }
  j["rounds"] = std::move(rounds);
  j["tests"] = p.tests;
  j["fabric_seconds"] = p.fabric_seconds();
  if (p.port > 0) j["port"] = p.port;
  if (!p.addresses.empty()) {
    auto a = nlohmann::ordered_json::object();
    for (const auto& [node, rails] : p.addresses) a[node] = rails;
    j["addresses"] = std::move(a);
  }
  return j;
}

bool sweep_test_failed(const SweepResult& r, double median) {
  if (!r.ok) return true;
  if (!r.a_counters.empty() || !r.b_counters.empty()) return true;
  return median > 0 && r.gbps < kSweepSlowFraction * median;
}

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string nic_key(const std::string& node, int rail) { return node + "\n" + std::to_string(rail); }

std::string gbps_text(double g) {
  std::string s = std::to_string(static_cast<long long>(g * 10 + 0.5));
  if (s.size() < 2) s.insert(0, "0");
  return s.substr(0, s.size() - 1) + "." + s.substr(s.size() - 1);
}

// FNV-1a: where a node's retests start among the references, the same on every build.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// What the blame reads from the units and the results, by node index: a sweep of 4,096 nodes
// has half a million results.
struct Evidence {
  std::vector<std::string> names;  // by node index
  std::vector<int> unit;           // by node index; -1: in no unit
  std::unordered_map<std::string, std::uint32_t> index;
  std::size_t rails = 1;
  // The median bandwidth per rail among the tests within each unit, and among the tests
  // across units (unit -1): [(unit + 1) * rails + rail].
  std::vector<double> median;
  struct Test {
    std::uint32_t result;
    std::uint32_t peer;
    bool failed;
  };
  std::vector<std::vector<Test>> by_nic;                      // [node * rails + rail]
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;  // each result's nodes

  std::uint32_t id(const std::string& name) {
    auto [it, fresh] = index.emplace(name, static_cast<std::uint32_t>(names.size()));
    if (fresh) {
      names.push_back(name);
      unit.push_back(-1);
    }
    return it->second;
  }
  int group(std::uint32_t a, std::uint32_t b) const { return unit[a] >= 0 && unit[a] == unit[b] ? unit[a] : -1; }
  std::size_t slot(int group, int rail) const {
    return static_cast<std::size_t>(group + 1) * rails + static_cast<std::size_t>(rail);
  }
  const std::vector<Test>* tests_of(std::uint32_t node, int rail) const {
    const std::size_t k = node * rails + static_cast<std::size_t>(rail);
    return rail >= 0 && k < by_nic.size() ? &by_nic[k] : nullptr;
  }
};

Evidence gather(const std::vector<SweepUnit>& units, const std::vector<SweepResult>& results) {
  Evidence e;
  for (std::size_t u = 0; u < units.size(); ++u) {
    e.rails = std::max(e.rails, units[u].leaves.size());
    for (const auto& n : units[u].nodes) e.unit[e.id(n.name)] = static_cast<int>(u);
  }
  e.ends.reserve(results.size());
  for (const auto& r : results) {
    e.ends.emplace_back(e.id(r.test.a), e.id(r.test.b));
    e.rails = std::max(e.rails, static_cast<std::size_t>(std::max(r.test.rail, 0)) + 1);
  }
  std::vector<std::vector<double>> speeds((units.size() + 1) * e.rails);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].ok && results[i].test.rail >= 0)
      speeds[e.slot(e.group(e.ends[i].first, e.ends[i].second), results[i].test.rail)].push_back(results[i].gbps);
  e.median.resize(speeds.size());
  for (std::size_t k = 0; k < speeds.size(); ++k) e.median[k] = median_of(std::move(speeds[k]));
  e.by_nic.resize(e.names.size() * e.rails);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (r.test.rail < 0) continue;
    const auto [a, b] = e.ends[i];
    const bool failed = sweep_test_failed(r, e.median[e.slot(e.group(a, b), r.test.rail)]);
    const auto rail = static_cast<std::size_t>(r.test.rail);
    e.by_nic[a * e.rails + rail].push_back({static_cast<std::uint32_t>(i), b, failed});
    e.by_nic[b * e.rails + rail].push_back({static_cast<std::uint32_t>(i), a, failed});
  }
  return e;
}

std::size_t distinct(std::vector<std::uint32_t>& v) {
  std::sort(v.begin(), v.end());
  return static_cast<std::size_t>(std::unique(v.begin(), v.end()) - v.begin());
}

// How many distinct peers a NIC met, and with how many it failed.
std::pair<std::size_t, std::size_t> peer_counts(const std::vector<Evidence::Test>& tests) {
  std::vector<std::uint32_t> peers, failed;
  for (const auto& t : tests) {
    peers.push_back(t.peer);
    if (t.failed) failed.push_back(t.peer);
  }
  return {distinct(peers), distinct(failed)};
}

SweepCulprit culprit(const Evidence& e, const std::vector<SweepResult>& results, std::uint32_t node, int rail,
                     const std::vector<Evidence::Test>& tests) {
  SweepCulprit c;
  c.node = e.names[node];
  c.rail = rail;
  std::tie(c.peers, c.failed_peers) = peer_counts(tests);
  std::vector<double> speeds;
  std::vector<std::string> counters;
  for (const auto& t : tests) {
    const SweepResult& r = results[t.result];
    speeds.push_back(r.ok ? r.gbps : 0);
    const std::string& mine = e.ends[t.result].first == node ? r.a_counters : r.b_counters;
    if (!mine.empty() && std::find(counters.begin(), counters.end(), mine) == counters.end()) counters.push_back(mine);
  }
  c.median_gbps = median_of(std::move(speeds));
  if (e.unit[node] >= 0) c.unit_median_gbps = e.median[e.slot(e.unit[node], rail)];
  c.counters = join(counters, ", ");
  return c;
}

std::string first_pass_why(const SweepCulprit& c) {
  std::string why = "failed with " + std::to_string(c.failed_peers) + " of " + std::to_string(c.peers) + " peers, " +
                    gbps_text(c.median_gbps) + " Gb/s";
  if (c.unit_median_gbps > 0) why += " (unit median " + gbps_text(c.unit_median_gbps) + ")";
  if (!c.counters.empty()) why += ", " + c.counters;
  return why;
}

bool blamed_by_majority(std::size_t peers, std::size_t failed) { return failed >= 2 && 2 * failed > peers; }

void sort_culprits(std::vector<SweepCulprit>& v) {
  std::sort(v.begin(), v.end(), [](const SweepCulprit& a, const SweepCulprit& b) {
    if (a.node != b.node) return natural_less(a.node, b.node);
    return a.rail < b.rail;
  });
}

}  // namespace

SweepBlame blame_sweep(const std::vector<SweepUnit>& units, const std::vector<SweepResult>& results,
                       const std::vector<std::string>& references) {
  SweepBlame b;
  const Evidence e = gather(units, results);
  b.tests = results.size();
  std::vector<bool> blamed(e.by_nic.size(), false);
  std::vector<double> speeds;
  for (std::size_t k = 0; k < e.by_nic.size(); ++k) {
    const auto& tests = e.by_nic[k];
    if (tests.empty()) continue;
    const auto [peers, failed] = peer_counts(tests);
    speeds.clear();
    for (const auto& t : tests) speeds.push_back(results[t.result].ok ? results[t.result].gbps : 0);
    b.nics.push_back({e.names[k / e.rails], static_cast<int>(k % e.rails), peers, failed, median_of(speeds)});
    if (!blamed_by_majority(peers, failed)) continue;
    SweepCulprit c = culprit(e, results, static_cast<std::uint32_t>(k / e.rails), static_cast<int>(k % e.rails), tests);
    c.why = first_pass_why(c);
    blamed[k] = true;
    b.culprits.push_back(std::move(c));
  }
  sort_culprits(b.culprits);
  for (auto& n : b.nics) {
    const std::uint32_t id = e.index.at(n.node);
    for (const auto& t : *e.tests_of(id, n.rail))
      if (t.failed && !blamed[t.peer * e.rails + static_cast<std::size_t>(n.rail)]) n.unexplained = true;
  }

  // The references a rail's retests may use: the operator's, then every node whose tests on
  // that rail all passed, its own unit's first (same leaf, no spine in the way).
  auto clean = [&](const std::string& node, int rail) {
    auto it = e.index.find(node);
    const auto* tests = it == e.index.end() ? nullptr : e.tests_of(it->second, rail);
    if (!tests || tests->empty()) return false;
    return std::none_of(tests->begin(), tests->end(), [](const Evidence::Test& t) { return t.failed; });
  };
  std::map<std::string, std::vector<SweepTest>> retest_of;  // nic key → its retests
  auto retests_for = [&](std::uint32_t id, int rail, const std::string& other) {
    const std::string& node = e.names[id];
    const std::string key = nic_key(node, rail);
    if (auto it = retest_of.find(key); it != retest_of.end()) return it->second;
    std::vector<std::string> picked;
    auto consider = [&](const std::string& ref) {
      if (picked.size() >= kRetestReferences || ref == node || ref == other) return;
      if (std::find(picked.begin(), picked.end(), ref) != picked.end()) return;
      picked.push_back(ref);
    };
    for (const auto& ref : references) consider(ref);
    for (int pass = 0; pass < 2 && picked.size() < kRetestReferences; ++pass)
      for (std::size_t u = 0; u < units.size(); ++u) {
        if ((pass == 0) != (static_cast<int>(u) == e.unit[id])) continue;
        // Start at a place that depends on the node, so that retests spread over references.
        const std::size_t n = units[u].nodes.size();
        const std::size_t start = n ? fnv1a(node) % n : 0;
        for (std::size_t k = 0; k < n && picked.size() < kRetestReferences; ++k) {
          const SweepNode& cand = units[u].nodes[(start + k) % n];
          if (cand.rails > rail && clean(cand.name, rail)) consider(cand.name);
        }
      }
    std::vector<SweepTest> tests;
    for (const auto& ref : picked) tests.push_back({node, ref, rail});
    retest_of[key] = tests;
    return tests;
  };
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (r.test.rail < 0) continue;
    const auto [a, bn] = e.ends[i];
    if (!sweep_test_failed(r, e.median[e.slot(e.group(a, bn), r.test.rail)])) continue;
    ++b.failed_tests;
    const auto rail = static_cast<std::size_t>(r.test.rail);
    if (blamed[a * e.rails + rail] || blamed[bn * e.rails + rail]) continue;
    SweepRetest rt{r, {}};
    for (const auto& t : retests_for(a, r.test.rail, r.test.b)) rt.tests.push_back(t);
    for (const auto& t : retests_for(bn, r.test.rail, r.test.a)) rt.tests.push_back(t);
    b.retests.push_back(std::move(rt));
  }
  return b;
}

std::vector<std::vector<SweepTest>> retest_rounds(const SweepBlame& b) {
  std::vector<std::vector<SweepTest>> rounds;
  std::vector<std::set<std::string>> busy;  // per round, the NICs in a test
  std::set<std::string> seen;
  for (const auto& rt : b.retests)
    for (const auto& t : rt.tests) {
      if (!seen.insert(nic_key(t.a + "\n" + t.b, t.rail)).second) continue;
      const std::string ka = nic_key(t.a, t.rail), kb = nic_key(t.b, t.rail);
      std::size_t r = 0;
      while (r < rounds.size() && (busy[r].count(ka) || busy[r].count(kb))) ++r;
      if (r == rounds.size()) {
        rounds.emplace_back();
        busy.emplace_back();
      }
      rounds[r].push_back(t);
      busy[r].insert(ka);
      busy[r].insert(kb);
    }
  return rounds;
}

SweepBlame settle_retests(const SweepBlame& first, const std::vector<SweepResult>& retests) {
  SweepBlame b;
  b.nics = first.nics;
  b.culprits = first.culprits;
  b.tests = first.tests + retests.size();
  b.failed_tests = first.failed_tests;
  // A retest's result by its test: the references' medians are the first pass's, so a retest
  // fails on its own evidence (the data, the counters) or when it is far below the others.
  std::map<std::string, const SweepResult*> result_of;
  std::vector<double> speeds;
  for (const auto& r : retests) {
    result_of[nic_key(r.test.a + "\n" + r.test.b, r.test.rail)] = &r;
    if (r.ok) speeds.push_back(r.gbps);
  }
  const double median = median_of(std::move(speeds));
  std::set<std::string> blamed;
  for (const auto& c : first.culprits) blamed.insert(nic_key(c.node, c.rail));
  auto verdict = [&](const std::string& node, const std::vector<SweepTest>& tests, SweepCulprit& c) {
    // true: every retest of `node` against a reference failed; false: one passed or none ran.
    std::size_t ran = 0, failed = 0;
    std::vector<std::string> refs, counters;
    for (const auto& t : tests) {
      if (t.a != node) continue;
      auto it = result_of.find(nic_key(t.a + "\n" + t.b, t.rail));
      if (it == result_of.end()) continue;
      ++ran;
      refs.push_back(t.b);
      if (sweep_test_failed(*it->second, median)) ++failed;
      if (!it->second->a_counters.empty()) counters.push_back(it->second->a_counters);
    }
    c.peers = ran;
    c.failed_peers = failed;
    c.counters = join(counters, ", ");
    c.why = "failed alone with a peer, then with " + std::to_string(failed) + " of " + std::to_string(ran) +
            " references (" + join(refs, ", ") + ")";
    if (!c.counters.empty()) c.why += ", " + c.counters;
    return ran > 0 && failed == ran;
  };
  for (const auto& rt : first.retests) {
    bool any = false;
    for (const std::string* node : {&rt.failed.test.a, &rt.failed.test.b}) {
      SweepCulprit c;
      c.node = *node;
      c.rail = rt.failed.test.rail;
      if (!verdict(*node, rt.tests, c)) continue;
      any = true;
      if (!blamed.insert(nic_key(c.node, c.rail)).second) continue;
      b.culprits.push_back(std::move(c));
    }
    if (any) continue;
    // Both nodes pass with references: the pair's path, not either link.
    b.pair_faults.push_back(rt.failed);
  }
  sort_culprits(b.culprits);
  return b;
}

}  // namespace railyard

namespace railyard {

namespace {

bool host_name_ok(const std::string& h) {
  if (h.empty() || h.size() > 253) return false;
  return std::all_of(h.begin(), h.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; });
}

// A counters note goes into a drain reason and a Prometheus label: printable ASCII, short.
bool note_ok(const std::string& s) {
  return s.size() <= 200 && std::all_of(s.begin(), s.end(),
                                        [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

}  // namespace

std::string sweep_note(const std::string& text) {
  constexpr std::size_t kMax = 200;
  std::string out;
  for (unsigned char c : text) {
    if (out.size() == kMax) return out.substr(0, kMax - 3) + "...";
    if (c == '"') out += '\'';
    else if (c == '\\') out += '/';
    else if (c >= 0x20 && c < 0x7f) out += static_cast<char>(c);
    else if (c == '\n' || c == '\t') out += ' ';
    // other bytes (the UTF-8 of a µ, a control character) are left out
  }
  return out;
}

std::optional<SweepResult> sweep_result_from_json(const nlohmann::json& j, std::string& why) {
  if (!j.is_object()) {
    why = "expected an object {\"a\", \"b\", \"rail\", \"ok\", \"gbps\"}";
    return std::nullopt;
  }
  SweepResult r;
  for (const char* k : {"a", "b"}) {
    if (!j.contains(k) || !j[k].is_string() || !host_name_ok(j[k].get<std::string>())) {
      why = std::string("\"") + k + "\": expected a host name (letters, digits, '-', '.', '_')";
      return std::nullopt;
    }
  }
  r.test.a = j["a"].get<std::string>();
  r.test.b = j["b"].get<std::string>();
  if (r.test.a == r.test.b) {
    why = "\"a\" and \"b\" are the same host";
    return std::nullopt;
  }
  if (!j.contains("rail") || !j["rail"].is_number_integer() || j["rail"].get<long long>() < 0 ||
      j["rail"].get<long long>() > 63) {
    why = "\"rail\": expected an integer 0 to 63";
    return std::nullopt;
  }
  r.test.rail = j["rail"].get<int>();
  if (!j.contains("ok") || !j["ok"].is_boolean()) {
    why = "\"ok\": expected true or false";
    return std::nullopt;
  }
  r.ok = j["ok"].get<bool>();
  if (!j.contains("gbps") || !j["gbps"].is_number() || !(j["gbps"].get<double>() >= 0) ||
      j["gbps"].get<double>() > 10000) {
    why = "\"gbps\": expected a number 0 to 10000";
    return std::nullopt;
  }
  r.gbps = j["gbps"].get<double>();
  for (auto [k, into] :
       {std::pair{"error", &r.error}, std::pair{"a_counters", &r.a_counters}, std::pair{"b_counters", &r.b_counters}}) {
    if (!j.contains(k)) continue;
    if (!j[k].is_string() || !note_ok(j[k].get<std::string>())) {
      why = std::string("\"") + k + "\": expected at most 200 printable characters, no quotes or backslashes";
      return std::nullopt;
    }
    *into = j[k].get<std::string>();
  }
  if (j.contains("from")) {
    if (!j["from"].is_string() || (j["from"] != r.test.a && j["from"] != r.test.b)) {
      why = "\"from\": expected the writing node, \"a\" or \"b\" of the test";
      return std::nullopt;
    }
    r.from = j["from"].get<std::string>();
  }
  return r;
}

std::optional<SweepPlan> sweep_plan_from_json(const nlohmann::json& j, std::string& why) {
  SweepPlan p;
  if (!j.is_object()) {
    why = "expected an object {\"mode\", \"seconds_per_test\", \"rounds\"}, as railyard fabric sweep --plan writes";
    return std::nullopt;
  }
  auto mode =
      j.contains("mode") && j["mode"].is_string() ? parse_sweep_mode(j["mode"].get<std::string>()) : std::nullopt;
  if (!mode) {
    why = "\"mode\": expected full or quick";
    return std::nullopt;
  }
  p.mode = *mode;
  if (!j.contains("seconds_per_test") || !j["seconds_per_test"].is_number() ||
      !(j["seconds_per_test"].get<double>() >= 0.1) || j["seconds_per_test"].get<double>() > 600) {
    why = "\"seconds_per_test\": expected a number 0.1 to 600";
    return std::nullopt;
  }
  p.seconds_per_test = j["seconds_per_test"].get<double>();
  if (!j.contains("rounds") || !j["rounds"].is_array()) {
    why = "\"rounds\": expected an array of rounds, each an array of tests";
    return std::nullopt;
  }
  std::set<std::string> nodes;
  for (std::size_t i = 0; i < j["rounds"].size(); ++i) {
    const auto& round = j["rounds"][i];
    const std::string at = "rounds[" + std::to_string(i) + "]";
    if (!round.is_array()) {
      why = at + ": expected an array of tests";
      return std::nullopt;
    }
    std::vector<SweepTest> tests;
    std::map<std::string, std::string> partner;  // in this round
    for (std::size_t k = 0; k < round.size(); ++k) {
      const auto& t = round[k];
      const std::string where = at + "[" + std::to_string(k) + "]";
      nlohmann::json as_result = t;
      if (as_result.is_object()) {
        as_result["ok"] = true;
        as_result["gbps"] = 0;
      }
      std::string bad;
      auto r = sweep_result_from_json(as_result, bad);
      if (!r || !r->from.empty() || t.size() != 3) {
        why = where + ": " + (r ? std::string("expected {\"a\", \"b\", \"rail\"} only") : bad);
        return std::nullopt;
      }
      for (const auto& [self, other] : {std::pair{r->test.a, r->test.b}, std::pair{r->test.b, r->test.a}}) {
        auto [it, fresh] = partner.emplace(self, other);
        if (!fresh && it->second != other) {
          why = where + ": " + self + " is in two pairs of one round (with " + it->second + " and " + other + ")";
          return std::nullopt;
        }
        nodes.insert(self);
      }
      tests.push_back(r->test);
    }
    p.tests += tests.size();
    p.rounds.push_back(std::move(tests));
  }
  p.nodes = nodes.size();
  if (j.contains("port")) {
    if (!j["port"].is_number_integer() || j["port"].get<long long>() < 1 || j["port"].get<long long>() > 65535) {
      why = "\"port\": expected a TCP port 1 to 65535";
      return std::nullopt;
    }
    p.port = j["port"].get<int>();
  }
  if (j.contains("addresses")) {
    const auto& a = j["addresses"];
    if (!a.is_object()) {
      why = "\"addresses\": expected an object, each node's rail addresses";
      return std::nullopt;
    }
    for (const auto& [node, rails] : a.items()) {
      const std::string at = "addresses." + node;
      if (auto bad = check_slurm_name(node)) {
        why = at + ": " + *bad;
        return std::nullopt;
      }
      if (!rails.is_array() || rails.size() > 64) {
        why = at + ": expected an array of at most 64 IPv4 addresses, one per rail (\"\" for none)";
        return std::nullopt;
      }
      std::vector<std::string> list;
      for (std::size_t i = 0; i < rails.size(); ++i) {
        if (!rails[i].is_string() ||
            (!rails[i].get<std::string>().empty() && !parse_ipv4(rails[i].get<std::string>()))) {
          why = at + "[" + std::to_string(i) + "]: expected an IPv4 address such as 198.18.0.1, or \"\"";
          return std::nullopt;
        }
        list.push_back(rails[i].get<std::string>());
      }
      p.addresses.emplace(node, std::move(list));
    }
  }
  return p;
}

namespace {

bool path_chars_ok(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+';
  });
}

}  // namespace

std::string sweep_job_error(const SweepJob& job) {
  if (job.dir.empty() || job.dir.front() != '/' || !path_chars_ok(job.dir) || job.dir.find("/../") != std::string::npos)
    return "the job's directory '" + job.dir +
           "': allowed: an absolute path of letters, digits and / . _ - + (it reaches the job script)";
  for (const auto* name : {&job.plan, &job.results})
    if (!path_chars_ok(*name) || name->find('/') != std::string::npos || name->front() == '.')
      return "the file name '" + *name + "': allowed: letters, digits and . _ - +";
  if (!job.partition.empty())
    if (auto why = check_slurm_name(job.partition)) return "the partition '" + job.partition + "': " + *why;
  if (job.nodes.empty()) return "a job needs nodes";
  for (const auto& n : job.nodes)
    if (auto why = check_slurm_name(n)) return "the node '" + n + "': " + *why;
  if (!path_chars_ok(job.worker)) return "the worker '" + job.worker + "': allowed: letters, digits and / . _ - +";
  if (job.lead_s < 1 || job.lead_s > 3600) return "the lead: allowed: 1 to 3600 seconds";
  if (!(job.fabric_seconds >= 0) || job.fabric_seconds > 7 * 86400) return "the fabric time: allowed: up to 7 days";
  return "";
}

std::string sweep_job_script(const SweepJob& job) {
  const std::string n = std::to_string(job.nodes.size());
  // The limit: the sweep, its lead, and two minutes for the workers to start and write.
  const long minutes = static_cast<long>((job.fabric_seconds + job.lead_s + 120 + 59) / 60);
  const std::string out = job.dir + "/" + job.results;
  std::string s = "#!/bin/sh\n";
  s += "#SBATCH --job-name=railyard-sweep\n";
  s += "#SBATCH --nodes=" + n + "\n";
  s += "#SBATCH --ntasks-per-node=1\n";
  s += "#SBATCH --exclusive\n";
  s += "#SBATCH --nodelist=" + join(job.nodes, ",") + "\n";
  if (!job.partition.empty()) s += "#SBATCH --partition=" + job.partition + "\n";
  s += "#SBATCH --time=" + std::to_string(minutes) + "\n";
  s += "#SBATCH --output=" + job.dir + "/slurm-%j.out\n";
  s += "# railyard fabric sweep's job (docs/sweep.md): every node's worker serves its rails and\n"
       "# writes to its peers round by round, all from one start; the results go to\n# " +
       out + ", judged by railyard fabric sweep once the job has ended.\n";
  s += "start=$(( $(date +%s) + " + std::to_string(job.lead_s) + " ))\n";
  s += "echo \"railyard: sweep of " + n + " node(s) starts at $start\"\n";
  s += "srun --nodes=" + n + " --ntasks-per-node=1 --kill-on-bad-exit=0 " + job.worker + " sweep-worker --plan " +
       job.dir + "/" + job.plan + " --start \"$start\" -o " + out + " ||\n";
  s += "  echo \"railyard: a worker failed or found a failure (exit $?): the analysis judges the results\"\n";
  s += "exit 0\n";
  return s;
}

std::vector<SweepSlot> sweep_worker_slots(const SweepPlan& plan, const std::string& node) {
  std::vector<SweepSlot> out;
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    std::vector<SweepSlot> second;  // b's writes, after the round's first half
    for (const auto& t : plan.rounds[r]) {
      const double start = static_cast<double>(r) * 2 * plan.seconds_per_test;
      if (t.a == node) out.push_back({t, r, true, t.b, start});
      else if (t.b == node) second.push_back({t, r, false, t.a, start + plan.seconds_per_test});
    }
    out.insert(out.end(), second.begin(), second.end());
  }
  return out;
}

std::vector<SweepResult> merge_sweep_ways(const std::vector<SweepResult>& ways) {
  struct Ways {
    std::optional<SweepResult> whole, from_a, from_b;
  };
  std::vector<std::string> order;
  std::map<std::string, Ways> by_test;
  for (const auto& w : ways) {
    const std::string key = w.test.a + "\n" + w.test.b + "\n" + std::to_string(w.test.rail);
    auto [it, fresh] = by_test.try_emplace(key);
    if (fresh) order.push_back(key);
    auto& slot = w.from.empty() ? it->second.whole : w.from == w.test.a ? it->second.from_a : it->second.from_b;
    if (!slot) slot = w;
  }
  std::vector<SweepResult> out;
  for (const auto& key : order) {
    const Ways& w = by_test[key];
    if (w.whole) {
      out.push_back(*w.whole);
      continue;
    }
    const SweepResult& any = w.from_a ? *w.from_a : *w.from_b;
    SweepResult m;
    m.test = any.test;
    m.ok = w.from_a && w.from_b && w.from_a->ok && w.from_b->ok;
    m.gbps = std::min(w.from_a ? w.from_a->gbps : 0.0, w.from_b ? w.from_b->gbps : 0.0);
    std::vector<std::string> errors;
    for (const auto* way : {&w.from_a, &w.from_b}) {
      const std::string& writer = way == &w.from_a ? m.test.a : m.test.b;
      if (!*way) errors.push_back("no result from " + writer + "'s write");
      else if (!(*way)->error.empty()) errors.push_back(writer + ": " + (*way)->error);
    }
    m.error = join(errors, "; ");
    if (m.error.size() > 200) m.error = m.error.substr(0, 197) + "...";
    // Each worker reads its own NIC's counters over the whole round: its write and the peer's.
    if (w.from_a) m.a_counters = w.from_a->a_counters;
    if (w.from_b) m.b_counters = w.from_b->b_counters;
    out.push_back(std::move(m));
  }
  return out;
}

nlohmann::ordered_json to_json(const SweepResult& r) {
  nlohmann::ordered_json j{{"a", r.test.a}, {"b", r.test.b}, {"rail", r.test.rail}};
  if (!r.from.empty()) j["from"] = r.from;
  j["ok"] = r.ok;
  j["gbps"] = r.gbps;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.a_counters.empty()) j["a_counters"] = r.a_counters;
  if (!r.b_counters.empty()) j["b_counters"] = r.b_counters;
  return j;
}

std::string sweep_drain_reason(const SweepCulprit& c) {
  std::string reason = "railyard: sweep rail." + std::to_string(c.rail) + " " + c.why;
  // Slurm keeps a reason whole, but scontrol and sinfo print it on one line: keep it short.
  constexpr std::size_t kMax = 200;
  if (reason.size() > kMax) reason = reason.substr(0, kMax - 3) + "...";
  return reason;
}

nlohmann::ordered_json sweep_json(const SweepBlame& b, SweepMode mode, bool settled,
                                  const std::vector<std::pair<std::string, std::vector<SweepPlace>>>& places) {
  auto place = [&](const std::string& node, int rail) -> SweepPlace {
    for (const auto& [n, rails] : places)
      if (n == node && rail >= 0 && static_cast<std::size_t>(rail) < rails.size())
        return rails[static_cast<std::size_t>(rail)];
    return {};
  };
  auto optional = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
  };
  nlohmann::ordered_json j;
  j["schema"] = 1;
  j["mode"] = to_string(mode);
  j["settled"] = settled;
  j["tests"] = b.tests;
  j["failed_tests"] = b.failed_tests;
  auto culprits = nlohmann::ordered_json::array();
  for (const auto& c : b.culprits) {
    SweepPlace p = place(c.node, c.rail);
    culprits.push_back({{"node", c.node},
                        {"rail", c.rail},
                        {"leaf", optional(p.leaf)},
                        {"port", optional(p.port)},
                        {"why", c.why},
                        {"peers", c.peers},
                        {"failed_peers", c.failed_peers},
                        {"median_gbps", c.median_gbps},
                        {"unit_median_gbps", c.unit_median_gbps},
                        {"counters", c.counters},
                        {"drain_reason", sweep_drain_reason(c)}});
  }
  j["culprits"] = std::move(culprits);
  auto pairs = nlohmann::ordered_json::array();
  for (const auto& r : b.pair_faults) pairs.push_back(to_json(r));
  j["pair_faults"] = std::move(pairs);
  auto pending = nlohmann::ordered_json::array();
  if (!settled)
    for (const auto& round : retest_rounds(b)) {
      auto tests = nlohmann::ordered_json::array();
      for (const auto& t : round) tests.push_back({{"a", t.a}, {"b", t.b}, {"rail", t.rail}});
      pending.push_back(std::move(tests));
    }
  j["retest_rounds"] = std::move(pending);
  // Every node-rail's first pass, its verdict the worst that holds: a culprit, a test that
  // failed with a peer nobody blamed (alone, or a pair fault's), or pass.
  std::set<std::pair<std::string, int>> blamed;
  for (const auto& c : b.culprits) blamed.emplace(c.node, c.rail);
  auto nodes = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < b.nics.size();) {
    const std::string& node = b.nics[i].node;
    auto rails = nlohmann::ordered_json::array();
    for (; i < b.nics.size() && b.nics[i].node == node; ++i) {
      const SweepNicStat& n = b.nics[i];
      const char* verdict = blamed.count({node, n.rail}) ? "culprit" : n.unexplained ? "failed" : "pass";
      rails.push_back({{"rail", n.rail},
                       {"peers", n.peers},
                       {"failed_peers", n.failed_peers},
                       {"median_gbps", n.median_gbps},
                       {"verdict", verdict}});
    }
    nodes.push_back({{"node", node}, {"rails", std::move(rails)}});
  }
  j["nodes"] = std::move(nodes);
  return j;
}

std::string sweep_prometheus_text(const SweepBlame& b, bool settled) {
  std::string out =
      "# HELP railyard_sweep_tests Tests the last fleet sweep ran.\n"
      "# TYPE railyard_sweep_tests gauge\n"
      "railyard_sweep_tests " +
      std::to_string(b.tests) +
      "\n# HELP railyard_sweep_failed_tests Tests of the last fleet sweep that failed (no data, a counter, or slow).\n"
      "# TYPE railyard_sweep_failed_tests gauge\n"
      "railyard_sweep_failed_tests " +
      std::to_string(b.failed_tests) +
      "\n# HELP railyard_sweep_settled 1 when the last sweep's retests against references have run.\n"
      "# TYPE railyard_sweep_settled gauge\n"
      "railyard_sweep_settled " +
      (settled ? "1" : "0") +
      "\n# HELP railyard_sweep_culprit A node-rail the last sweep blamed (its link).\n"
      "# TYPE railyard_sweep_culprit gauge\n";
  for (const auto& c : b.culprits)
    out += "railyard_sweep_culprit{node=\"" + c.node + "\",rail=\"" + std::to_string(c.rail) + "\"} 1\n";
  out +=
      "# HELP railyard_sweep_pair_fault A pair that failed alone while both nodes passed against references.\n"
      "# TYPE railyard_sweep_pair_fault gauge\n";
  for (const auto& r : b.pair_faults)
    out += "railyard_sweep_pair_fault{a=\"" + r.test.a + "\",b=\"" + r.test.b + "\",rail=\"" +
           std::to_string(r.test.rail) + "\"} 1\n";
  return out;
}

}  // namespace railyard

namespace railyard {

std::vector<SweepSlurmAction> sweep_slurm_actions(const SweepBlame& b, bool settled,
                                                  const std::vector<SweepUnit>& units,
                                                  const std::vector<SlurmNodeState>& states,
                                                  const std::vector<std::string>& state_names) {
  std::map<std::string, const SlurmNodeState*> state_of;
  for (std::size_t i = 0; i < states.size() && i < state_names.size(); ++i) state_of[state_names[i]] = &states[i];
  std::map<std::string, std::vector<const SweepCulprit*>> by_node;
  for (const auto& c : b.culprits) by_node[c.node].push_back(&c);
  std::vector<SweepSlurmAction> out;
  for (const auto& [node, cs] : by_node) {
    auto it = state_of.find(node);
    // Unknown to the controller: nothing to drain (the caller names it). Drained already:
    // that reason stands, the sweep's own or an operator's.
    if (it == state_of.end() || !it->second->known || it->second->drained) continue;
    std::string reason;
    if (cs.size() == 1) {
      reason = sweep_drain_reason(*cs[0]);
    } else {
      std::vector<std::string> rails;
      for (const auto* c : cs) rails.push_back("rail." + std::to_string(c->rail));
      reason = std::string(kSweepReasonPrefix) + join(rails, ",") + " " + cs[0]->why;
      if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
    }
    out.push_back({node, true, reason, ""});
  }
  if (!settled) return out;
  for (const auto& u : units)
    for (const auto& n : u.nodes) {
      if (by_node.count(n.name)) continue;
      auto it = state_of.find(n.name);
      if (it == state_of.end() || !drained_by_sweep(*it->second)) continue;
      out.push_back({n.name, false, "", "the sweep passes it: " + it->second->reason});
    }
  return out;
}

}  // namespace railyard
