#include "report/sweep_view.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "report/rails_picture.h"
#include "report/report_source.h"
#include "text.h"

namespace railyard {

namespace {

std::string gbps_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A field of `j` as T, or why not: `where` names it in the error.
struct Reader {
  std::string path;
  std::string error;
  bool ok() const { return error.empty(); }
  void bad(const std::string& where, const std::string& expected) {
    if (error.empty()) error = path + ": " + where + ": expected " + expected + " (docs/sweep.schema.json)";
  }
  std::string str(const nlohmann::json& j, const char* key, const std::string& where, bool nullable = false) {
    if (j.contains(key) && j[key].is_string()) return escape_control(j[key].get<std::string>());
    if (nullable && (!j.contains(key) || j[key].is_null())) return "";
    bad(where + "." + key, nullable ? "a string or null" : "a string");
    return "";
  }
  std::size_t count(const nlohmann::json& j, const char* key, const std::string& where) {
    if (j.contains(key) && j[key].is_number_unsigned()) return j[key].get<std::size_t>();
    if (j.contains(key) && j[key].is_number_integer() && j[key].get<long long>() >= 0) return j[key].get<std::size_t>();
    bad(where + "." + key, "a whole number 0 or more");
    return 0;
  }
  int rail(const nlohmann::json& j, const std::string& where) {
    if (j.contains("rail") && j["rail"].is_number_integer() && j["rail"].get<long long>() >= 0 &&
        j["rail"].get<long long>() < 64)
      return j["rail"].get<int>();
    bad(where + ".rail", "a rail 0 to 63");
    return 0;
  }
  double number(const nlohmann::json& j, const char* key, const std::string& where) {
    if (j.contains(key) && j[key].is_number() && j[key].get<double>() >= 0) return j[key].get<double>();
    bad(where + "." + key, "a number 0 or more");
    return 0;
  }
  const nlohmann::json& array(const nlohmann::json& j, const char* key, const std::string& where) {
    static const nlohmann::json empty = nlohmann::json::array();
    if (j.contains(key) && j[key].is_array()) return j[key];
    bad(where + key, "an array");
    return empty;
  }
};

}  // namespace

Outcome<SweepView> read_sweep_view(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return Outcome<SweepView>::fail(text.error());
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Outcome<SweepView>::fail(path + ": not a JSON object; expected the sweep.json railyard fabric sweep writes");
  Reader rd{path, ""};
  if (!j.contains("schema") || j["schema"] != 1) rd.bad("schema", "1");
  SweepView v;
  v.path = path;
  v.mode = rd.str(j, "mode", "");
  if (!j.contains("settled") || !j["settled"].is_boolean()) rd.bad("settled", "true or false");
  else v.settled = j["settled"].get<bool>();
  v.tests = rd.count(j, "tests", "");
  v.failed_tests = rd.count(j, "failed_tests", "");
  const auto& culprits = rd.array(j, "culprits", "");
  for (std::size_t i = 0; i < culprits.size() && rd.ok(); ++i) {
    const std::string at = "culprits[" + std::to_string(i) + "]";
    const auto& c = culprits[i];
    if (!c.is_object()) {
      rd.bad(at, "an object");
      break;
    }
    v.culprits.push_back({rd.str(c, "node", at), rd.rail(c, at), rd.str(c, "leaf", at, true),
                          rd.str(c, "port", at, true), rd.str(c, "why", at), rd.str(c, "drain_reason", at)});
  }
  const auto& pairs = rd.array(j, "pair_faults", "");
  for (std::size_t i = 0; i < pairs.size() && rd.ok(); ++i) {
    const std::string at = "pair_faults[" + std::to_string(i) + "]";
    const auto& p = pairs[i];
    if (!p.is_object()) {
      rd.bad(at, "an object");
      break;
    }
    v.pair_faults.push_back({rd.str(p, "a", at), rd.str(p, "b", at), rd.rail(p, at), rd.str(p, "error", at, true)});
  }
  v.retest_rounds = rd.array(j, "retest_rounds", "").size();
  // "nodes" came with the workers: a sweep.json without it has no grid.
  if (j.contains("nodes")) {
    const auto& nodes = rd.array(j, "nodes", "");
    for (std::size_t i = 0; i < nodes.size() && rd.ok(); ++i) {
      const std::string at = "nodes[" + std::to_string(i) + "]";
      const auto& n = nodes[i];
      if (!n.is_object()) {
        rd.bad(at, "an object");
        break;
      }
      std::vector<SweepCellView> cells;
      const auto& rails = rd.array(n, "rails", at + ".");
      for (std::size_t k = 0; k < rails.size() && rd.ok(); ++k) {
        const std::string rat = at + ".rails[" + std::to_string(k) + "]";
        const auto& r = rails[k];
        SweepCellView c;
        c.rail = rd.rail(r, rat);
        c.peers = rd.count(r, "peers", rat);
        c.failed_peers = rd.count(r, "failed_peers", rat);
        c.median_gbps = rd.number(r, "median_gbps", rat);
        c.verdict = rd.str(r, "verdict", rat);
        if (rd.ok() && c.verdict != "pass" && c.verdict != "failed" && c.verdict != "culprit")
          rd.bad(rat + ".verdict", "pass, failed or culprit");
        cells.push_back(std::move(c));
      }
      v.nodes.emplace_back(rd.str(n, "node", at), std::move(cells));
    }
  }
  if (!rd.ok()) return Outcome<SweepView>::fail(rd.error);
  // The culprits' nodes first, then the others as the sweep wrote them.
  std::set<std::string> blamed;
  for (const auto& c : v.culprits) blamed.insert(c.node);
  std::stable_partition(v.nodes.begin(), v.nodes.end(), [&](const auto& n) { return blamed.count(n.first) > 0; });
  return v;
}

namespace {

std::string place_text(const SweepCulpritView& c) {
  if (c.leaf.empty()) return "leaf unknown";
  return c.leaf + (c.port.empty() ? "" : " port " + c.port);
}

std::string verdict_line(const SweepView& v) {
  if (!v.culprits.empty() || !v.pair_faults.empty())
    return plural(v.culprits.size(), "culprit") + ", " + plural(v.pair_faults.size(), "pair fault");
  if (!v.settled) return "retests against references still to run";
  return "every link passed";
}

}  // namespace

std::string sweep_text(const SweepView& v, const TextStyle& st) {
  std::ostringstream out;
  const bool clean = v.culprits.empty() && v.pair_faults.empty() && v.settled;
  out << "\n"
      << st.bold("fabric sweep") << " " << escape_control(v.path) << " (" << v.mode << (v.settled ? "" : ", unsettled")
      << "): " << v.tests << " tests, " << v.failed_tests
      << " failed: " << (clean ? st.good(verdict_line(v)) : st.bad(verdict_line(v))) << "\n";
  for (const auto& c : v.culprits)
    out << "  " << st.bad(c.node + " rail " + std::to_string(c.rail)) << " (" << place_text(c) << "): " << c.why
        << "\n";
  for (const auto& p : v.pair_faults)
    out << "  " << st.warn(p.a + " and " + p.b + " rail " + std::to_string(p.rail))
        << ": failed together, each passed against references (the path between them)"
        << (p.error.empty() ? "" : ": " + p.error) << "\n";
  if (!v.settled)
    out << "  " << plural(v.retest_rounds, "retest round")
        << " to run before anyone is blamed (railyard fabric sweep --analyze)\n";
  return out.str();
}

nlohmann::ordered_json sweep_summary_json(const SweepView& v) {
  auto culprits = nlohmann::ordered_json::array();
  for (const auto& c : v.culprits)
    culprits.push_back({{"node", c.node},
                        {"rail", c.rail},
                        {"leaf", c.leaf.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.leaf)},
                        {"port", c.port.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.port)},
                        {"why", c.why}});
  auto pairs = nlohmann::ordered_json::array();
  for (const auto& p : v.pair_faults) pairs.push_back({{"a", p.a}, {"b", p.b}, {"rail", p.rail}});
  return {{"file", v.path},
          {"mode", v.mode},
          {"settled", v.settled},
          {"tests", v.tests},
          {"failed_tests", v.failed_tests},
          {"culprits", culprits},
          {"pair_faults", pairs},
          {"retest_rounds", v.retest_rounds}};
}

std::string sweep_node_text(const SweepView& v, const std::string& node, const TextStyle& st) {
  auto it = std::find_if(v.nodes.begin(), v.nodes.end(), [&](const auto& n) { return n.first == node; });
  std::vector<std::string> lines;
  for (const auto& c : v.culprits)
    if (c.node == node)
      lines.push_back(st.bad("rail " + std::to_string(c.rail) + " blamed") + " (" + place_text(c) + "): " + c.why);
  for (const auto& p : v.pair_faults)
    if (p.a == node || p.b == node)
      lines.push_back(st.warn("rail " + std::to_string(p.rail) + " with " + (p.a == node ? p.b : p.a)) +
                      ": a pair fault (the path between them), not this node's link");
  if (it != v.nodes.end())
    for (const auto& c : it->second)
      if (c.verdict != "culprit")
        lines.push_back("rail " + std::to_string(c.rail) + " " +
                        (c.verdict == "pass" ? st.good("pass") : st.warn("failed")) + ": " + std::to_string(c.peers) +
                        " peers, " + std::to_string(c.failed_peers) + " failed, median " + gbps_text(c.median_gbps) +
                        " Gb/s");
  if (lines.empty()) return "";
  std::string out =
      "\n" + st.bold("fabric sweep") + " " + escape_control(v.path) + (v.settled ? "" : " (unsettled)") + "\n";
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

std::string sweep_html(const SweepView& v) {
  std::ostringstream out;
  out << "<h2>Fabric sweep</h2>\n<p class=\"legend\">" << html_escape(v.path) << " · " << html_escape(v.mode) << " · "
      << v.tests << " tests, " << v.failed_tests << " failed · " << html_escape(verdict_line(v))
      << (v.settled ? "" : " · unsettled: retests to run") << "</p>\n";
  if (!v.culprits.empty()) {
    out << "<table class=\"failures\"><tr><th>node</th><th>rail</th><th>leaf</th><th>port</th><th>why</th></tr>\n";
    for (const auto& c : v.culprits)
      out << "<tr class=\"fail\"><td>" << html_escape(c.node) << "</td><td class=\"num\">" << c.rail << "</td><td>"
          << html_escape(c.leaf.empty() ? "?" : c.leaf) << "</td><td>" << html_escape(c.port.empty() ? "?" : c.port)
          << "</td><td>" << html_escape(c.why) << "</td></tr>\n";
    out << "</table>\n";
  }
  if (!v.pair_faults.empty()) {
    out << "<ul class=\"failed\">\n";
    for (const auto& p : v.pair_faults)
      out << "<li>" << html_escape(p.a) << " and " << html_escape(p.b) << " on rail " << p.rail
          << ": failed together, each passed against references (the path between them)</li>\n";
    out << "</ul>\n";
  }
  if (v.nodes.empty()) return out.str();
  int rails = 0;
  for (const auto& [node, cells] : v.nodes)
    for (const auto& c : cells) rails = std::max(rails, c.rail + 1);
  out << "<p class=\"legend\">Each node's rails as the sweep found them: <span class=\"fail\">culprit</span>, "
         "<span class=\"warn\">a test failed</span>, <span class=\"pass\">pass</span>, grey: not tested. Culprits "
         "first.</p>\n<table class=\"unit sweep\"><tr><th>node</th>";
  for (int r = 0; r < rails; ++r) out << "<th>" << r << "</th>";
  out << "</tr>\n";
  for (const auto& [node, cells] : v.nodes) {
    out << "<tr><th>" << html_escape(node) << "</th>";
    for (int r = 0; r < rails; ++r) {
      auto c = std::find_if(cells.begin(), cells.end(), [r](const SweepCellView& x) { return x.rail == r; });
      if (c == cells.end()) {
        out << "<td class=\"n\" title=\"rail " << r << ": not tested\"></td>";
        continue;
      }
      const char* cls = c->verdict == "culprit" ? "f" : c->verdict == "failed" ? "w" : "p";
      out << "<td class=\"" << cls << "\" title=\"rail " << r << ": " << c->verdict << ", " << c->failed_peers << " of "
          << c->peers << " peers failed, median " << gbps_text(c->median_gbps) << " Gb/s\"></td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

}  // namespace railyard
