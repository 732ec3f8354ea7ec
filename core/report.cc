#include "report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

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
  static constexpr CheckStatus by_rank[] = {CheckStatus::pass, CheckStatus::pass, CheckStatus::warn, CheckStatus::skip,
                                            CheckStatus::unsupported, CheckStatus::fail};
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
          {"lldp", r.lldp}};
}

std::string result_marker(const Report& r) {
  return "railyard: result=" + std::string(r.passed() ? "pass" : "fail") + " checks=" + std::to_string(r.checks.size()) +
         " failed=" + std::to_string(r.failed_count());
}

std::string summary_text(const Report& r) {
  std::ostringstream out;
  out << "railyard self-test for " << (r.node.empty() ? "this node" : r.node) << " (recipe " << r.recipe << "): "
      << (r.passed() ? "PASS" : "FAIL") << "\n";
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

std::string prometheus_text(const Report& r) {
  auto label = [](const std::string& s) {
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
  };
  std::ostringstream out;
  out << "# HELP railyard_selftest_pass 1 when every required first-boot check passed.\n"
      << "# TYPE railyard_selftest_pass gauge\n"
      << "railyard_selftest_pass{node=\"" << label(r.node) << "\",recipe=\"" << label(r.recipe) << "\"} "
      << (r.passed() ? 1 : 0) << "\n"
      << "# HELP railyard_selftest_check Status of each first-boot check (1 for the status it has).\n"
      << "# TYPE railyard_selftest_check gauge\n";
  for (const auto& c : r.checks)
    out << "railyard_selftest_check{check=\"" << label(c.name()) << "\",status=\"" << to_string(c.status) << "\"} 1\n";
  out << "# HELP railyard_phase_seconds Duration of each first-boot phase.\n"
      << "# TYPE railyard_phase_seconds gauge\n";
  for (const auto& p : r.phases)
    out << "railyard_phase_seconds{phase=\"" << label(p.phase) << "\"} " << std::fixed << std::setprecision(3)
        << p.ms / 1000.0 << "\n";
  return out.str();
}

}  // namespace railyard
