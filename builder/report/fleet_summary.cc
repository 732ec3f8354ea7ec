#include "report/fleet_summary.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "report/hints.h"
#include "text.h"

namespace railyard {

namespace {

using nlohmann::ordered_json;

const std::string kUnknown = "(unknown)";

std::vector<GroupCount> sorted_groups(std::map<std::string, GroupCount>& groups) {
  std::vector<GroupCount> out;
  for (auto& [name, g] : groups) out.push_back(g);
  std::stable_sort(out.begin(), out.end(), [](const GroupCount& a, const GroupCount& b) { return a.nodes > b.nodes; });
  return out;
}

void count(std::map<std::string, GroupCount>& groups, const std::string& name, bool passed) {
  GroupCount& g = groups[name.empty() ? kUnknown : name];
  g.name = name.empty() ? kUnknown : name;
  ++g.nodes;
  g.passed += passed;
}

std::string percent(std::size_t part, std::size_t whole) {
  if (whole == 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

void group_table(std::ostringstream& out, const std::string& title, const std::vector<GroupCount>& groups,
                 const TextStyle& st) {
  std::size_t w = title.size();  // rows are indented by two: a name fills at most w - 1
  for (const auto& g : groups) w = std::max(w, g.name.size() + 1);
  out << "\n"
      << st.bold(pad_right(title, w + 2)) << pad_left("nodes", 7) << pad_left("pass", 8) << pad_left("fail", 8) << "\n";
  for (const auto& g : groups) {
    std::string fail = pad_left(std::to_string(g.failed()), 8);
    out << "  " << pad_right(escape_control(g.name), w) << pad_left(std::to_string(g.nodes), 7)
        << pad_left(std::to_string(g.passed), 8) << (g.failed() ? st.bad(fail) : fail) << "\n";
  }
}

ordered_json groups_json(const std::vector<GroupCount>& groups) {
  ordered_json out = ordered_json::array();
  for (const auto& g : groups)
    out.push_back({{"name", g.name}, {"nodes", g.nodes}, {"pass", g.passed}, {"fail", g.failed()}});
  return out;
}

std::string kind_pattern(CheckKind k) {
  switch (scope_of(k)) {
    case CheckScope::gpu:
    case CheckScope::rail:
    case CheckScope::nvmeof: return CheckId{k, 0, ""}.pattern();
    case CheckScope::bridge: return CheckId::acs("0000:00:00.0").pattern();
    default: return CheckId::node(k).name();
  }
}

}  // namespace

bool counts_as_pass(const ReportDigest& n) { return n.passed && n.contradiction().empty(); }

std::string tally_text(const CheckTally& t) {
  std::string out = "verified on " + std::to_string(t.verified()) + " of " + plural(t.nodes, "node");
  if (t.warn) out += " (" + std::to_string(t.warn) + " with a warning)";
  if (t.fail) out += ", failed on " + std::to_string(t.fail);
  if (t.unsupported) out += ", unsupported by the driver on " + std::to_string(t.unsupported);
  if (t.skip) out += ", skipped on " + std::to_string(t.skip);
  return out;
}

FleetSummary summarize(const Fleet& fleet) {
  FleetSummary s;
  s.dir = fleet.dir;
  s.reports = fleet.reports;
  s.nodes = fleet.nodes.size();
  s.unreadable = fleet.unreadable;
  std::map<std::string, GroupCount> recipes, drivers, kernels;
  std::unordered_map<std::string, CheckFailures> failures;
  std::vector<std::string> order;  // kinds in first-seen order, for stable ties
  std::array<CheckTally, kCheckKinds> tallies{};
  for (const auto& n : fleet.nodes) {
    const bool passed = counts_as_pass(n);
    s.passed += passed;
    if (!n.contradiction().empty()) s.contradictory.push_back(n.node);
    count(recipes, n.recipe, passed);
    count(drivers, join(n.drivers, " + "), passed);
    count(kernels, n.kernel, passed);
    bool unverified = false;
    for (std::size_t k = 0; k < kCheckKinds; ++k) {
      if (!n.worst[k]) continue;
      // Apply's own outcomes and names this version does not know prove nothing about the
      // node: their skips leave no check of the plan unverified.
      const auto kind = static_cast<CheckKind>(k);
      const bool proves = kind != CheckKind::apply_failed && kind != CheckKind::other;
      CheckTally& t = tallies[k];
      ++t.nodes;
      switch (status_of_rank(n.worst[k])) {
        case CheckStatus::pass: ++t.pass; break;
        case CheckStatus::warn: ++t.warn; break;
        case CheckStatus::fail: ++t.fail; break;
        case CheckStatus::unsupported: ++t.unsupported, unverified |= proves; break;
        case CheckStatus::skip: ++t.skip, unverified |= proves; break;
      }
    }
    s.passed_unverified += passed && unverified;
    std::set<std::string> kinds_here;
    auto add = [&](const std::string& kind) {
      auto [it, inserted] = failures.try_emplace(kind);
      if (inserted) {
        it->second.kind = kind;
        order.push_back(kind);
      }
      ++it->second.checks;
      if (kinds_here.insert(kind).second) {
        ++it->second.nodes;
        if (it->second.examples.size() < kExamplesShown) it->second.examples.push_back(n.node);
      }
    };
    for (const auto& f : n.failures) add(f.id.pattern());
    for (std::size_t i = 0; i < n.problems.size(); ++i) add("(plan)");
    if (!n.passed && n.failures.empty() && n.problems.empty()) add("(result fail, no failing check)");
  }
  // The kinds this railyard knows; apply's refusals and unknown names are failures, not kinds of proof.
  for (std::size_t k = 0; k < kCheckKinds; ++k) {
    auto kind = static_cast<CheckKind>(k);
    if (!tallies[k].nodes || kind == CheckKind::apply_failed || kind == CheckKind::other) continue;
    tallies[k].kind = kind;
    tallies[k].check = kind_pattern(kind);
    s.checks.push_back(tallies[k]);
  }
  for (const auto& k : order) s.failures.push_back(std::move(failures[k]));
  std::stable_sort(s.failures.begin(), s.failures.end(), [](const CheckFailures& a, const CheckFailures& b) {
    return a.nodes != b.nodes ? a.nodes > b.nodes : a.kind < b.kind;
  });
  s.by_recipe = sorted_groups(recipes);
  s.by_driver_release = sorted_groups(drivers);
  s.by_kernel = sorted_groups(kernels);

  std::vector<const ReportDigest*> by_time;
  for (const auto& n : fleet.nodes) by_time.push_back(&n);
  std::size_t shown = std::min(kSlowestShown, by_time.size());
  std::partial_sort(by_time.begin(), by_time.begin() + static_cast<std::ptrdiff_t>(shown), by_time.end(),
                    [](const ReportDigest* a, const ReportDigest* b) {
                      double ta = a->total_ms(), tb = b->total_ms();
                      return ta != tb ? ta > tb : a->node < b->node;
                    });
  for (std::size_t i = 0; i < shown; ++i)
    s.slowest.push_back({by_time[i]->node, by_time[i]->total_ms(), by_time[i]->phases});
  return s;
}

std::string to_text(const FleetSummary& s, const TextStyle& st) {
  std::ostringstream out;
  std::size_t failed = s.nodes - s.passed;
  out << st.bold("fleet") << " " << escape_control(s.dir) << ": " << plural(s.nodes, "node") << " ("
      << plural(s.reports, "report") << ")\n";
  out << "  " << st.good("pass") << " " << s.passed << " (" << percent(s.passed, s.nodes) << ")   "
      << (failed ? st.bad("fail") : std::string("fail")) << " " << failed << " (" << percent(failed, s.nodes) << ")\n";
  if (s.passed_unverified)
    out << "  " << st.warn(std::to_string(s.passed_unverified) + " of the " + std::to_string(s.passed) + " passing")
        << " left a check unverified (unsupported or skipped): see \"not verified everywhere\"\n";
  if (!s.contradictory.empty())
    out << "  "
        << st.bad(plural(s.contradictory.size(), "report") +
                  (s.contradictory.size() == 1 ? " contradicts itself" : " contradict themselves"))
        << " (counted as fail): " << escape_control(join(s.contradictory, ", ")) << "\n";

  // The kinds some node could not prove (failures alone are in the table below).
  std::vector<const CheckTally*> short_of_proof;
  for (const auto& t : s.checks)
    if (t.unsupported || t.skip) short_of_proof.push_back(&t);
  if (!short_of_proof.empty()) {
    out << "\n" << st.bold("not verified everywhere") << "\n";
    std::size_t w = 0;
    for (const auto* t : short_of_proof) w = std::max(w, escape_control(t->check).size() + 2);  // the colon and a space
    for (const auto* t : short_of_proof)
      out << "  " << pad_right(escape_control(t->check) + ":", w) << tally_text(*t) << "\n";
  } else if (!s.checks.empty() && s.failures.empty()) {
    out << "  every check verified on every node that has it (" << plural(s.checks.size(), "kind") << ")\n";
  }

  if (!s.failures.empty()) {
    std::size_t w = std::string("failures by check").size();
    for (const auto& f : s.failures) w = std::max(w, escape_control(f.kind).size() + 1);
    out << "\n"
        << st.bold(pad_right("failures by check", w + 2)) << pad_left("nodes", 7) << pad_left("checks", 8)
        << "  examples\n";
    for (const auto& f : s.failures)
      out << "  " << pad_right(escape_control(f.kind), w) << pad_left(std::to_string(f.nodes), 7)
          << pad_left(std::to_string(f.checks), 8) << "  " << escape_control(join(f.examples, ", "))
          << (f.nodes > f.examples.size() ? ", ..." : "") << "\n";
  }
  group_table(out, "by recipe (SKU)", s.by_recipe, st);
  group_table(out, "by driver release", s.by_driver_release, st);
  group_table(out, "by kernel", s.by_kernel, st);

  if (!s.slowest.empty()) {
    std::size_t w = std::string("slowest first boots").size();
    for (const auto& n : s.slowest) w = std::max(w, escape_control(n.node).size() + 1);
    out << "\n" << st.bold(pad_right("slowest first boots", w + 2)) << pad_left("total", 12) << "   phases\n";
    for (const auto& n : s.slowest) {
      std::vector<std::string> parts;
      for (const auto& p : n.phases) parts.push_back(escape_control(p.phase) + " " + duration_text(p.ms));
      out << "  " << pad_right(escape_control(n.node), w) << pad_left(duration_text(n.total_ms), 12) << "   "
          << join(parts, ", ") << "\n";
    }
  }
  if (!s.unreadable.empty()) {
    out << "\n" << st.bad("unreadable reports") << " " << s.unreadable.size() << "\n";
    for (const auto& u : s.unreadable) out << "  " << escape_control(u.path) << ": " << escape_control(u.error) << "\n";
  }
  return out.str();
}

ordered_json to_json(const FleetSummary& s) {
  ordered_json failures = ordered_json::array();
  for (const auto& f : s.failures)
    failures.push_back({{"check", f.kind}, {"nodes", f.nodes}, {"checks", f.checks}, {"examples", f.examples}});
  ordered_json slowest = ordered_json::array();
  for (const auto& n : s.slowest) {
    ordered_json phases = ordered_json::array();
    for (const auto& p : n.phases) phases.push_back({{"phase", p.phase}, {"ms", p.ms}});
    slowest.push_back({{"node", n.node}, {"total_ms", n.total_ms}, {"phases", phases}});
  }
  ordered_json unreadable = ordered_json::array();
  for (const auto& u : s.unreadable) unreadable.push_back({{"path", u.path}, {"error", u.error}});
  ordered_json checks = ordered_json::array();
  for (const auto& t : s.checks)
    checks.push_back({{"check", t.check},
                      {"nodes", t.nodes},
                      {"verified", t.verified()},
                      {"pass", t.pass},
                      {"warn", t.warn},
                      {"fail", t.fail},
                      {"unsupported", t.unsupported},
                      {"skip", t.skip}});
  return {{"dir", s.dir},
          {"reports", s.reports},
          {"nodes", s.nodes},
          {"pass", s.passed},
          {"fail", s.nodes - s.passed},
          {"pass_unverified", s.passed_unverified},
          {"contradictory", s.contradictory},
          {"checks", checks},
          {"failures_by_check", failures},
          {"by_recipe", groups_json(s.by_recipe)},
          {"by_driver_release", groups_json(s.by_driver_release)},
          {"by_kernel", groups_json(s.by_kernel)},
          {"slowest", slowest},
          {"unreadable", unreadable}};
}

}  // namespace railyard
