#include "report.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <optional>
#include <sstream>

#include "text.h"
#include "topology.h"

namespace railyard {

using nlohmann::ordered_json;

bool CheckResult::failing() const {
  if (status == CheckStatus::fail) return true;
  return required && (status == CheckStatus::unsupported);
}

bool Report::passed() const { return problems.empty() && failed_count() == 0; }

int Report::failed_count() const {
  int n = 0;
  for (const auto& c : checks)
    if (c.failing()) ++n;
  return n;
}

std::vector<std::string> failing_checks(const Report& r) {
  std::vector<std::string> out;
  if (!r.problems.empty()) out.push_back("plan");
  for (const auto& c : r.checks)
    if (c.failing() && std::find(out.begin(), out.end(), c.name()) == out.end()) out.push_back(c.name());
  return out;
}

std::string drain_reason(const Report& r) {
  std::vector<std::string> names = failing_checks(r);
  std::string out = "railyard:";
  std::size_t shown = 0;
  for (; shown < names.size(); ++shown) {
    std::string more = shown + 1 < names.size() ? " (+" + std::to_string(names.size() - shown - 1) + " more)" : "";
    std::string next = out + (shown ? ", " : " ") + names[shown];
    // Room for this name and, when others follow, for saying how many.
    if (next.size() + more.size() > kDrainReasonLimit && shown > 0) break;
    out = next;
  }
  if (shown < names.size()) out += " (+" + std::to_string(names.size() - shown) + " more)";
  if (names.empty()) out += " self-test failed";
  return out.substr(0, kDrainReasonLimit);
}

std::uint8_t worst_rank(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return 1;
    case CheckStatus::warn: return 2;
    case CheckStatus::skip: return 3;
    case CheckStatus::unsupported: return 4;
    case CheckStatus::fail: return 5;
  }
  return 5;
}

CheckStatus status_of_rank(std::uint8_t rank) {
  static constexpr CheckStatus by_rank[] = {CheckStatus::pass, CheckStatus::pass,        CheckStatus::warn,
                                            CheckStatus::skip, CheckStatus::unsupported, CheckStatus::fail};
  return by_rank[std::min<std::uint8_t>(rank, 5)];
}

std::string to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "fail";
    case CheckStatus::skip: return "skip";
    case CheckStatus::warn: return "warn";
    case CheckStatus::unsupported: return "unsupported";
  }
  return "?";
}

std::optional<CheckStatus> parse_check_status(const std::string& s) {
  for (auto st : {CheckStatus::pass, CheckStatus::fail, CheckStatus::skip, CheckStatus::warn, CheckStatus::unsupported})
    if (to_string(st) == s) return st;
  return std::nullopt;
}

ordered_json to_json(const Report& r) {
  ordered_json checks = ordered_json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"name", c.name()},
                      {"status", to_string(c.status)},
                      {"expected", c.expected},
                      {"observed", c.observed},
                      {"detail", c.detail},
                      {"required", c.required}});
  ordered_json phases = ordered_json::array();
  for (const auto& p : r.phases) phases.push_back({{"phase", p.phase}, {"ms", p.ms}});
  return {{"schema", kReportSchema},
          {"node", r.node},
          {"recipe", r.recipe},
          {"result", r.passed() ? "pass" : "fail"},
          {"railyard_version", r.railyard_version},
          {"started_at", r.started_at},
          {"host",
           {{"hostname", r.host.hostname},
            {"kernel", r.host.kernel},
            {"boot_id", r.host.boot_id},
            {"drivers", r.host.drivers}}},
          {"problems", r.problems},
          {"checks", checks},
          {"phases", phases},
          {"changes", r.changes},
          {"plan", r.plan},
          {"inventory", r.inventory},
          {"modules", r.modules},
          {"lldp", r.lldp},
          {"peers", r.peers},
          {"join", r.join}};
}

std::string result_marker(const Report& r) {
  return "railyard: result=" + std::string(r.passed() ? "pass" : "fail") +
         " checks=" + std::to_string(r.checks.size()) + " failed=" + std::to_string(r.failed_count());
}

std::string summary_text(const Report& r) {
  std::ostringstream out;
  out << "railyard self-test for " << (r.node.empty() ? "this node" : r.node) << " (recipe " << r.recipe
      << "): " << (r.passed() ? "PASS" : "FAIL") << "\n";
  for (const auto& p : r.problems) out << "  PROBLEM     " << p << "\n";
  for (const auto& c : r.checks)
    if (c.failing())
      out << "  FAIL        " << c.name() << ": expected " << c.expected << ", observed " << c.observed
          << (c.detail.empty() ? "" : " (" + c.detail + ")") << "\n";
  for (const auto& c : r.checks)
    if (!c.failing() && c.status != CheckStatus::pass)
      out << "  " << std::left << std::setw(12) << to_string(c.status) << c.name() << ": " << c.observed
          << (c.detail.empty() ? "" : " (" + c.detail + ")") << "\n";
  int passed = 0;
  for (const auto& c : r.checks)
    if (c.status == CheckStatus::pass) ++passed;
  out << "  " << passed << " of " << r.checks.size() << " checks passed\n";
  out << "  phases:";
  for (const auto& p : r.phases) out << " " << p.phase << " " << std::fixed << std::setprecision(0) << p.ms << " ms";
  out << "\n";
  return out.str();
}

namespace {

// A label value as the exposition format escapes it: backslash, double quote, line feed.
std::string prom_label(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void prom_metric(std::ostream& out, const char* name, const char* help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
}

// Each rail's peer probe that completed: its bandwidth and latency to its reference.
void peer_metrics(std::ostream& out, const nlohmann::ordered_json& peers) {
  if (!peers.is_array()) return;
  struct Figure {
    const char* key;
    const char* name;
    const char* help;
    double scale;
  };
  for (const Figure& f : {Figure{"gbps", "railyard_rail_peer_bandwidth_gbps",
                                 "Each rail's RDMA WRITE bandwidth across its leaf to its reference, in Gb/s.", 1.0},
                          Figure{"latency_us", "railyard_rail_peer_latency_seconds",
                                 "Each rail's small RDMA WRITE round trip across its leaf to its reference.", 1e-6}}) {
    bool any = false;
    for (const auto& p : peers) {
      if (!p.is_object() || !p.contains(f.key) || !p[f.key].is_number() || !p.contains("rail")) continue;
      if (!any) prom_metric(out, f.name, f.help);
      any = true;
      out << f.name << "{rail=\"" << p["rail"].dump() << "\",reference=\""
          << prom_label(p.value("reference", std::string())) << "\"} " << std::setprecision(6) << std::defaultfloat
          << p[f.key].get<double>() * f.scale << "\n";
    }
  }
}

}  // namespace

std::string prometheus_text(const Report& r) {
  const auto& label = prom_label;
  const auto& metric = prom_metric;
  std::ostringstream out;
  metric(out, "railyard_info", "The railyard that ran the first boot, and the node's kernel, drivers and recipe.");
  std::string drivers;
  for (const auto& d : r.host.drivers) drivers += (drivers.empty() ? "" : ",") + d;
  out << "railyard_info{version=\"" << label(r.railyard_version) << "\",kernel=\"" << label(r.host.kernel)
      << "\",drivers=\"" << label(drivers) << "\",recipe=\"" << label(r.recipe) << "\"} 1\n";
  if (auto t = parse_rfc3339(r.started_at)) {
    metric(out, "railyard_report_timestamp_seconds", "When the first-boot run this report is of started.");
    out << "railyard_report_timestamp_seconds " << *t << "\n";
  }
  metric(out, "railyard_selftest_pass", "1 when every required first-boot check passed.");
  out << "railyard_selftest_pass{node=\"" << label(r.node) << "\",recipe=\"" << label(r.recipe) << "\"} "
      << (r.passed() ? 1 : 0) << "\n";
  metric(out, "railyard_selftest_check", "Status of each first-boot check (1 for the status it has).");
  for (const auto& c : r.checks)
    out << "railyard_selftest_check{check=\"" << label(c.name()) << "\",status=\"" << to_string(c.status)
        << "\",required=\"" << (c.required ? "true" : "false") << "\"} 1\n";
  if (r.join.is_object()) {
    if (r.join.contains("joined") && r.join["joined"].is_boolean()) {
      metric(out, "railyard_joined", "1 when the node joined: the self-test passed and every join unit is active.");
      out << "railyard_joined " << (r.join["joined"].get<bool>() ? 1 : 0) << "\n";
    }
    if (r.join.contains("posted") && r.join["posted"].is_boolean()) {
      metric(out, "railyard_report_posted",
             "1 when the report reached the recipe's report URL, 0 when every attempt failed.");
      out << "railyard_report_posted " << (r.join["posted"].get<bool>() ? 1 : 0) << "\n";
    }
  }
  metric(out, "railyard_phase_seconds", "Duration of each first-boot phase.");
  for (const auto& p : r.phases)
    out << "railyard_phase_seconds{phase=\"" << label(p.phase) << "\"} " << std::fixed << std::setprecision(3)
        << p.ms / 1000.0 << "\n";
  peer_metrics(out, r.peers);
  return out.str();
}

namespace {

// A Kubernetes label value: at most 63 of [A-Za-z0-9._-], beginning and ending with a letter
// or digit; anything else becomes '_'.
std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 63))
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(out.begin());
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

// Each rail's leaf as the report's LLDP heard it (its system name, or chassis ID where it
// sent none), in rail order; nullopt unless every one of the plan's `rails` heard one.
std::optional<std::vector<std::string>> heard_leaves(const Report& r, std::size_t rails) {
  if (rails == 0 || !r.lldp.is_array()) return std::nullopt;
  std::vector<std::string> leaves(rails);
  for (const auto& e : r.lldp) {
    if (!e.is_object() || !e.contains("rail") || !e["rail"].is_number_unsigned() || !e.contains("neighbor") ||
        !e["neighbor"].is_object())
      continue;
    auto rail = e["rail"].get<std::size_t>();
    const auto& n = e["neighbor"];
    auto text = [&](const char* k) { return n.contains(k) && n[k].is_string() ? n[k].get<std::string>() : ""; };
    if (rail < rails) leaves[rail] = text("system_name").empty() ? text("chassis_id") : text("system_name");
  }
  if (std::any_of(leaves.begin(), leaves.end(), [](const std::string& l) { return l.empty(); })) return std::nullopt;
  return leaves;
}

}  // namespace

std::string nfd_features_text(const Report& r) {
  std::ostringstream out;
  out << "# railyard-firstboot's self-test, for node-feature-discovery's local source (labels\n"
         "# feature.node.kubernetes.io/NAME); rewritten at every run.\n";
  out << "railyard-selftest=" << (r.passed() ? "pass" : "fail") << "\n";
  bool joined =
      r.join.is_object() && r.join.contains("joined") && r.join["joined"].is_boolean() && r.join["joined"].get<bool>();
  out << "railyard-joined=" << (joined ? "true" : "false") << "\n";
  if (!r.recipe.empty()) out << "railyard-recipe=" << label_value(r.recipe) << "\n";
  std::size_t rails = 0;
  std::vector<std::pair<std::size_t, std::string>> devices;  // rail, its RDMA device
  if (r.plan.is_object() && r.plan.contains("rails") && r.plan["rails"].is_array())
    for (const auto& rail : r.plan["rails"]) {
      if (rail.is_object() && rail.contains("rdma_device") && rail["rdma_device"].is_string())
        if (std::string d = label_value(rail["rdma_device"].get<std::string>()); !d.empty())
          devices.emplace_back(rails, d);
      ++rails;
    }
  out << "railyard-rails=" << rails << "\n";
  out << "railyard-rdma-devices=" << devices.size() << "\n";
  for (const auto& [rail, device] : devices) out << "railyard-rail-" << rail << "-rdma=" << device << "\n";
  // The scalable unit the rails reach, as `railyard report topology --format k8s-labels`
  // names it: only on a node that passed with every rail's leaf heard, and only when each
  // name is a label value as it is (a mangled leaf name would place the node wrongly).
  auto leaves = heard_leaves(r, rails);
  if (r.passed() && leaves) {
    auto labels = topology_labels(ScalableUnit{unit_name(*leaves), *leaves, {}});
    if (std::all_of(labels.begin(), labels.end(), [](const auto& l) { return !check_k8s_label_value(l.second); })) {
      out << "# The scalable unit its rails reach (nfd-master -extra-label-ns=railyard.io):\n";
      for (const auto& [key, value] : labels) out << key << "=" << value << "\n";
    }
  }
  return out.str();
}

}  // namespace railyard
