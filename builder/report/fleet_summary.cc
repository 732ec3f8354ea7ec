#include "report/fleet_summary.h"

#include <algorithm>
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
  out << "\n" << st.bold(pad_right(title, w + 2)) << pad_left("nodes", 7) << pad_left("pass", 8) << pad_left("fail", 8) << "\n";
  for (const auto& g : groups) {
    std::string fail = pad_left(std::to_string(g.failed()), 8);
    out << "  " << pad_right(escape_control(g.name), w) << pad_left(std::to_string(g.nodes), 7) << pad_left(std::to_string(g.passed), 8)
        << (g.failed() ? st.bad(fail) : fail) << "\n";
  }
}

ordered_json groups_json(const std::vector<GroupCount>& groups) {
  ordered_json out = ordered_json::array();
  for (const auto& g : groups) out.push_back({{"name", g.name}, {"nodes", g.nodes}, {"pass", g.passed}, {"fail", g.failed()}});
  return out;
}

}  // namespace

FleetSummary summarize(const Fleet& fleet) {
  FleetSummary s;
  s.dir = fleet.dir;
  s.reports = fleet.reports;
  s.nodes = fleet.nodes.size();
  s.unreadable = fleet.unreadable;
  std::map<std::string, GroupCount> recipes, drivers, kernels;
  std::unordered_map<std::string, CheckFailures> failures;
  std::vector<std::string> order;  // kinds in first-seen order, for stable ties
  for (const auto& n : fleet.nodes) {
    s.passed += n.passed;
    count(recipes, n.recipe, n.passed);
    count(drivers, join(n.drivers, " + "), n.passed);
    count(kernels, n.kernel, n.passed);
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
  for (std::size_t i = 0; i < shown; ++i) s.slowest.push_back({by_time[i]->node, by_time[i]->total_ms(), by_time[i]->phases});
  return s;
}

std::string to_text(const FleetSummary& s, const TextStyle& st) {
  std::ostringstream out;
  std::size_t failed = s.nodes - s.passed;
  out << st.bold("fleet") << " " << escape_control(s.dir) << ": " << plural(s.nodes, "node") << " (" << plural(s.reports, "report") << ")\n";
  out << "  " << st.good("pass") << " " << s.passed << " (" << percent(s.passed, s.nodes) << ")   "
      << (failed ? st.bad("fail") : std::string("fail")) << " " << failed << " (" << percent(failed, s.nodes) << ")\n";

  if (!s.failures.empty()) {
    std::size_t w = std::string("failures by check").size();
    for (const auto& f : s.failures) w = std::max(w, f.kind.size() + 1);
    out << "\n" << st.bold(pad_right("failures by check", w + 2)) << pad_left("nodes", 7) << pad_left("checks", 8)
        << "  examples\n";
    for (const auto& f : s.failures)
      out << "  " << pad_right(f.kind, w) << pad_left(std::to_string(f.nodes), 7) << pad_left(std::to_string(f.checks), 8)
          << "  " << escape_control(join(f.examples, ", ")) << (f.nodes > f.examples.size() ? ", ..." : "") << "\n";
  }
  group_table(out, "by recipe (SKU)", s.by_recipe, st);
  group_table(out, "by driver release", s.by_driver_release, st);
  group_table(out, "by kernel", s.by_kernel, st);

  if (!s.slowest.empty()) {
    std::size_t w = std::string("slowest first boots").size();
    for (const auto& n : s.slowest) w = std::max(w, n.node.size() + 1);
    out << "\n" << st.bold(pad_right("slowest first boots", w + 2)) << pad_left("total", 12) << "   phases\n";
    for (const auto& n : s.slowest) {
      std::vector<std::string> parts;
      for (const auto& p : n.phases) parts.push_back(p.phase + " " + duration_text(p.ms));
      out << "  " << pad_right(escape_control(n.node), w) << pad_left(duration_text(n.total_ms), 12) << "   " << join(parts, ", ") << "\n";
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
  return {{"dir", s.dir},
          {"reports", s.reports},
          {"nodes", s.nodes},
          {"pass", s.passed},
          {"fail", s.nodes - s.passed},
          {"failures_by_check", failures},
          {"by_recipe", groups_json(s.by_recipe)},
          {"by_driver_release", groups_json(s.by_driver_release)},
          {"by_kernel", groups_json(s.by_kernel)},
          {"slowest", slowest},
          {"unreadable", unreadable}};
}

}  // namespace railyard
