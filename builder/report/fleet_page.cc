#include "report/fleet_page.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "report/hints.h"
#include "report/rails_picture.h"
#include "report/text_style.h"
#include "text.h"

namespace railyard {

namespace {

const char* kStyle = R"(
body{font-family:sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:18px;margin:28px 0 6px}
.counts span{display:inline-block;margin-right:18px;font-size:15px}
span.pass,td.pass{color:#2e7d32;font-weight:bold}
span.fail,td.fail{color:#c62828;font-weight:bold}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{border:1px solid #ccd3de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef2f8}
tr.fail td:first-child{border-left:4px solid #c62828}
tr.pass td:first-child{border-left:4px solid #2e7d32}
td.num{text-align:right}
section.node{border-top:1px solid #ccd3de;margin-top:18px;padding-top:4px;content-visibility:auto;contain-intrinsic-size:auto 320px}
.meta{color:#555;font-size:12px;margin:2px 0 8px}
.failure{margin:4px 0 10px 12px;font-size:13px}
.failure .hint{color:#3b4a60;font-style:italic}
.legend{font-size:12px;color:#555}
span.warn,td.warn{color:#a06d00;font-weight:bold}
tr.unverified td:first-child{border-left:4px solid #a06d00}
ul.failed{margin:4px 0 12px;padding-left:20px;font-size:14px}
ul.failed li{margin:3px 0}
ul.failed .hint{color:#3b4a60;font-style:italic}
.units{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
table.unit{margin:0;font-size:11px}
table.unit caption{text-align:left;font-weight:bold;font-size:12px;padding:2px 0}
table.unit th{font-weight:normal;padding:1px 4px;white-space:nowrap}
table.unit td{width:12px;height:12px;padding:0}
table.unit td.p{background:#2e7d32}
table.unit td.f{background:#c62828}
table.unit td.w{background:#a06d00}
table.unit td.n{background:#e0e0e0}
)";

// What to fix first on a failing node, for the page's first screen: its first planning
// problem, else its first failing check that follows from no other, else why it fails.
struct FirstCause {
  std::string what;  // "rail.0.link: down (expected up)", "plan: ..."
  std::string hint;
};

FirstCause first_cause(const LoadedReport& lr) {
  const Report& r = lr.report;
  if (!r.problems.empty()) return {"plan: " + r.problems.front(), hint_for_problem(r.problems.front())};
  auto roots = root_causes(r.checks);
  if (!roots.empty()) {
    const CheckResult& c = *roots.front();
    std::string what = c.name() + " " + to_string(c.status) + ": observed " + c.observed + ", expected " + c.expected;
    if (roots.size() > 1) what += " (and " + std::to_string(roots.size() - 1) + " more)";
    return {what, hint_for(c, r.checks)};
  }
  if (std::string c = lr.contradiction(); !c.empty()) return {"the report contradicts itself: " + c, ""};
  return {"the report says fail", ""};
}

std::string id_for(const std::string& node) {
  std::string out = "node-";
  for (char c : node) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out;
}

std::string node_label(const std::string& name) { return name.empty() ? "(unnamed)" : name; }

void group_table(std::ostringstream& out, const std::string& title, const std::vector<GroupCount>& groups,
                 const std::string& cls) {
  out << "<table class=\"" << cls << "\"><tr><th>" << html_escape(title)
      << "</th><th>nodes</th><th>pass</th><th>fail</th></tr>\n";
  for (const auto& g : groups)
    out << "<tr><td>" << html_escape(g.name) << "</td><td class=\"num\">" << g.nodes << "</td><td class=\"num\">"
        << g.passed << "</td><td class=\"num\">" << g.failed() << "</td></tr>\n";
  out << "</table>\n";
}

void node_section(std::ostringstream& out, const LoadedReport& lr) {
  const Report& r = lr.report;
  out << "<section class=\"node\" id=\"" << id_for(lr.name()) << "\">\n<h2>" << html_escape(node_label(lr.name()))
      << " <span class=\"" << (lr.verdict() ? "pass\">PASS" : "fail\">FAIL") << "</span></h2>\n";
  std::vector<std::string> meta{"recipe " + r.recipe};
  if (!r.host.kernel.empty()) meta.push_back("kernel " + r.host.kernel);
  if (!r.host.drivers.empty()) meta.push_back("drivers " + join(r.host.drivers, ", "));
  if (!r.started_at.empty()) meta.push_back("started " + r.started_at);
  out << "<div class=\"meta\">" << html_escape(join(meta, " · ")) << "</div>\n";
  for (const auto& p : r.problems)
    out << "<div class=\"failure problem\"><span class=\"fail\">PROBLEM</span> " << html_escape(p)
        << "<br><span class=\"hint\">" << html_escape(hint_for_problem(p)) << "</span></div>\n";
  for (const auto& c : r.checks) {
    if (!c.failing()) continue;
    out << "<div class=\"failure check\"><span class=\"fail\">"
        << (c.status == CheckStatus::fail ? "FAIL" : "UNSUPPORTED") << "</span> <b>" << html_escape(c.name())
        << "</b>: expected " << html_escape(c.expected) << ", observed " << html_escape(c.observed)
        << (c.detail.empty() ? "" : " (" + html_escape(c.detail) + ")");
    if (std::string h = hint_for(c, r.checks); !h.empty())
      out << "<br><span class=\"hint\">" << html_escape(h) << "</span>";
    out << "</div>\n";
  }
  out << rails_svg(rails_picture(r)) << "\n</section>\n";
}

// The fabric view: the nodes left out of the topology first (miscabled, unheard, never
// passed), then each scalable unit as a table, a column per rail's leaf and a row per node,
// failing nodes first, each rail's cell coloured by its worst check. Compact: a 4,096-node
// fleet's view is one cell per rail, titled only where something fails.
void fabric_view(std::ostringstream& out, const Topology& t, const std::vector<ReportDigest>& nodes) {
  if (t.units.empty() && t.left_out.empty()) return;
  std::unordered_map<std::string, const ReportDigest*> by_name;
  for (const auto& n : nodes) by_name.emplace(n.node, &n);
  std::size_t placed = 0;
  for (const auto& u : t.units) placed += u.nodes.size();
  out << "<h2>Fabric</h2>\n<p class=\"legend\">" << plural(t.units.size(), "scalable unit") << " from the rails' LLDP ("
      << plural(placed, "node") << " placed, " << t.left_out.size()
      << " left out; <code>railyard report topology</code> writes them for Slurm): a column per rail's leaf, a row per "
         "node, each rail red where a check of it fails, amber where one is unsupported, grey where the node has no "
         "such rail, green otherwise.</p>\n";
  if (!t.left_out.empty()) {
    out << "<ul class=\"failed left-out\">\n";
    for (const auto& o : t.left_out) {
      out << "<li><a href=\"#" << id_for(o.node) << "\">" << html_escape(node_label(o.node))
          << "</a>: " << html_escape(o.why);
      if (!o.likely_unit.empty()) out << " <span class=\"hint\">likely " << html_escape(o.likely_unit) << "</span>";
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "<div class=\"units\">\n";
  for (const auto& u : t.units) {
    std::vector<const ReportDigest*> rows;
    for (const auto& name : u.nodes)
      if (auto it = by_name.find(name); it != by_name.end()) rows.push_back(it->second);
    std::stable_sort(rows.begin(), rows.end(), [](const ReportDigest* a, const ReportDigest* b) {
      return !counts_as_pass(*a) && counts_as_pass(*b);
    });
    out << "<table class=\"unit\" id=\"unit-" << html_escape(u.name) << "\"><caption>" << html_escape(u.name) << " · "
        << plural(u.nodes.size(), "node") << "</caption><tr><th></th>";
    for (const auto& leaf : u.leaves) out << "<th>" << html_escape(leaf) << "</th>";
    out << "</tr>\n";
    for (const auto* n : rows) {
      out << "<tr><th><a href=\"#" << id_for(n->node) << "\">" << html_escape(n->node) << "</a></th>";
      for (std::size_t r = 0; r < u.leaves.size(); ++r) {
        if (r >= n->rails.size()) {  // a node of fewer rails (another SKU of the unit)
          out << "<td class=\"n\" title=\"no rail " << r << "\"></td>";
          continue;
        }
        std::vector<std::string> failing;
        bool unsupported_only = true;
        for (const auto& f : n->failures)
          if (f.id.scope() == CheckScope::rail && f.id.index == static_cast<int>(r)) {
            failing.push_back(f.id.name());
            if (f.status == CheckStatus::fail) unsupported_only = false;
          }
        if (failing.empty()) out << "<td class=\"p\"></td>";
        else
          out << "<td class=\"" << (unsupported_only ? "w" : "f") << "\" title=\"" << html_escape(join(failing, ", "))
              << "\"></td>";
      }
      out << "</tr>\n";
    }
    out << "</table>\n";
  }
  out << "</div>\n";
}

}  // namespace

std::string fleet_page(const FleetSummary& s, const std::vector<ReportDigest>& nodes, const Topology& topology,
                       const ReportLoader& load, std::vector<UnreadableReport>& unreadable, const SweepView* sweep) {
  // Failing nodes first, then by name.
  std::vector<const ReportDigest*> order;
  for (const auto& n : nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [](const ReportDigest* a, const ReportDigest* b) {
    return !counts_as_pass(*a) && counts_as_pass(*b);
  });

  // The sections first, each report loaded once: what the first screen says of a failing
  // node comes from its whole report.
  std::ostringstream sections;
  std::vector<std::pair<const ReportDigest*, FirstCause>> failed_nodes;
  // Past kAllPicturesUpTo nodes, only the nodes that need a look (failing, or left out of the
  // topology) get their rails drawn: a picture is ~12 KB of SVG, and 4,096 of them make a page
  // no browser opens in time. The others keep a section, so that every link lands.
  const bool every_picture = nodes.size() <= kAllPicturesUpTo;
  std::unordered_set<std::string> left_out;
  for (const auto& o : topology.left_out) left_out.insert(o.node);
  for (const auto* n : order) {
    if (!every_picture && counts_as_pass(*n) && !left_out.count(n->node)) {
      sections << "<section class=\"node\" id=\"" << id_for(n->node) << "\">\n<h2>" << html_escape(node_label(n->node))
               << " <span class=\"pass\">PASS</span></h2>\n<div class=\"meta\">recipe " << html_escape(n->recipe)
               << " · not drawn in a fleet of " << nodes.size() << " nodes: <code>railyard report show "
               << html_escape(n->path) << "</code></div>\n</section>\n";
      continue;
    }
    auto r = load(*n);
    if (r.ok()) {
      if (!counts_as_pass(*n)) failed_nodes.push_back({n, first_cause(*r)});
      node_section(sections, *r);
      continue;
    }
    unreadable.push_back({n->path, r.error()});
    if (!counts_as_pass(*n)) failed_nodes.push_back({n, {"unreadable: " + r.error(), ""}});
    sections << "<section class=\"node\" id=\"" << id_for(n->node) << "\">\n<h2>" << html_escape(node_label(n->node))
             << "</h2>\n<p><span class=\"fail\">unreadable</span> " << html_escape(n->path) << ": "
             << html_escape(r.error()) << "</p>\n</section>\n";
  }

  std::ostringstream out;
  std::size_t failed = s.nodes - s.passed;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>railyard fleet: "
      << plural(s.nodes, "node") << ", " << failed << " failing</title>\n<style>" << kStyle
      << "</style></head><body>\n";
  out << "<h1>railyard fleet</h1>\n<div class=\"counts\"><span>" << plural(s.nodes, "node")
      << "</span><span class=\"pass\">" << s.passed << " pass</span><span class=\"fail\">" << failed
      << " fail</span><span>" << plural(s.reports, "report") << "</span>";
  if (s.passed_unverified)
    out << "<span class=\"warn\">" << s.passed_unverified << " of the " << s.passed
        << " passing left a check unverified</span>";
  out << "</div>\n";

  if (!failed_nodes.empty()) {
    out << "<h2>Failed nodes</h2>\n<ul class=\"failed\">\n";
    for (const auto& [n, cause] : failed_nodes) {
      out << "<li><a href=\"#" << id_for(n->node) << "\">" << html_escape(node_label(n->node))
          << "</a>: " << html_escape(cause.what);
      if (!cause.hint.empty()) out << "<br><span class=\"hint\">" << html_escape(cause.hint) << "</span>";
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  if (!s.checks.empty()) {
    out << "<h2>Checks by kind</h2>\n<table "
           "class=\"checks\"><tr><th>check</th><th>nodes</th><th>verified</th><th>failed</th>"
           "<th>unsupported</th><th>skipped</th><th></th></tr>\n";
    for (const auto& t : s.checks) {
      bool proven = t.verified() == t.nodes;
      out << "<tr class=\""
          << (proven   ? "verified"
              : t.fail ? "fail"
                       : "unverified")
          << "\"><td>" << html_escape(t.check) << "</td><td class=\"num\">" << t.nodes << "</td><td class=\"num\">"
          << t.verified() << "</td><td class=\"num" << (t.fail ? " fail" : "") << "\">" << t.fail
          << "</td><td class=\"num" << (t.unsupported ? " warn" : "") << "\">" << t.unsupported
          << "</td><td class=\"num" << (t.skip ? " warn" : "") << "\">" << t.skip << "</td><td>"
          << (proven ? "" : html_escape(tally_text(t))) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  if (!s.contradictory.empty())
    out << "<p><span class=\"fail\">" << html_escape(plural(s.contradictory.size(), "report"))
        << (s.contradictory.size() == 1 ? " contradicts itself" : " contradict themselves")
        << "</span> (counted as fail): " << html_escape(join(s.contradictory, ", ")) << "</p>\n";

  if (!s.failures.empty()) {
    out << "<h2>Failures by check</h2>\n<table class=\"failures\"><tr><th>check</th><th>nodes</th><th>checks</th>"
           "<th>examples</th></tr>\n";
    for (const auto& f : s.failures) {
      out << "<tr><td>" << html_escape(f.kind) << "</td><td class=\"num\">" << f.nodes << "</td><td class=\"num\">"
          << f.checks << "</td><td>";
      for (std::size_t i = 0; i < f.examples.size(); ++i)
        out << (i ? ", " : "") << "<a href=\"#" << id_for(f.examples[i]) << "\">" << html_escape(f.examples[i])
            << "</a>";
      out << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h2>Groups</h2>\n";
  group_table(out, "recipe (SKU)", s.by_recipe, "by-recipe");
  group_table(out, "driver release", s.by_driver_release, "by-driver");
  group_table(out, "kernel", s.by_kernel, "by-kernel");
  if (!s.unreadable.empty()) {
    out << "<h2>Unreadable reports</h2>\n<ul class=\"unreadable\">\n";
    for (const auto& u : s.unreadable)
      out << "<li>" << html_escape(u.path) << ": " << html_escape(u.error) << "</li>\n";
    out << "</ul>\n";
  }

  fabric_view(out, topology, nodes);
  if (sweep) out << sweep_html(*sweep);
  out << "<h2>Nodes</h2>\n<table id=\"fleet\"><tr><th>node</th><th>result</th><th>recipe</th><th>kernel</th>"
         "<th>drivers</th><th>failing checks</th><th>first boot</th><th>started</th><th>received</th></tr>\n";
  for (const auto* n : order) {
    std::vector<std::string> failing;
    if (!n->problems.empty()) failing.push_back("(plan: " + plural(n->problems.size(), "problem") + ")");
    for (const auto& f : n->failures) failing.push_back(f.id.name());
    const char* cls = counts_as_pass(*n) ? "pass" : "fail";
    std::string received = n->received_at ? format_rfc3339(n->received_at) : "";
    if (!received.empty() && !n->received_recorded) received += " (file time)";
    out << "<tr class=\"node-row " << cls << "\"><td><a href=\"#" << id_for(n->node) << "\">"
        << html_escape(node_label(n->node)) << "</a></td><td class=\"" << cls << "\">" << cls << "</td><td>"
        << html_escape(n->recipe) << "</td><td>" << html_escape(n->kernel) << "</td><td>"
        << html_escape(join(n->drivers, ", ")) << "</td><td>" << html_escape(join(failing, ", "))
        << "</td><td class=\"num\">" << html_escape(duration_text(n->total_ms())) << "</td><td>"
        << html_escape(n->started_at) << "</td><td>" << html_escape(received) << "</td></tr>\n";
  }
  out << "</table>\n";
  out << "<p class=\"legend\">Rails: each GPU joined to its rail NIC, labelled with the pair's PCIe affinity "
         "(PIX/PXB green, PHB/NODE amber, SYS red), grouped by the NIC's NUMA node. NIC colour, by the rail's worst: "
         "red link down or a check failing, amber the RDMA port not ACTIVE or a check unsupported or skipped, green "
         "link up and every check of the rail verified, grey unknown."
      << (nodes.size() > kAllPicturesUpTo
              ? " In a fleet of more than " + std::to_string(kAllPicturesUpTo) +
                    " nodes only the failing nodes and those left out of the topology are drawn."
              : std::string())
      << "</p>\n";
  out << sections.str();
  out << "</body></html>\n";
  return out.str();
}

}  // namespace railyard
