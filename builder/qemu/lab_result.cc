#include "lab_result.h"

#include <nlohmann/json.hpp>

#include "text.h"

namespace railyard {

namespace {

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

LabVerdict judge_lab_run(const std::string& report_text, const std::string& status_text,
                         const std::string& agent_errors) {
  LabVerdict v;
  auto report = nlohmann::json::parse(report_text, nullptr, false);
  if (report_text.empty() || report.is_discarded() || !report.is_object() || !report.contains("result")) {
    v.summary = report_text.empty() ? "no report came out of the guest" : "the guest's report is not a railyard report";
    return v;
  }
  std::string node = text(report, "node");
  std::string who = node.empty() ? "the node" : node;
  std::string result = text(report, "result");
  if (result != "pass" && result != "fail") {
    v.summary = "the report's result is '" + result + "', neither pass nor fail";
    return v;
  }
  if (report.contains("problems") && report["problems"].is_array())
    for (const auto& p : report["problems"])
      if (p.is_string()) v.detail.push_back("problem: " + p.get<std::string>());
  int failed = 0;
  if (report.contains("checks") && report["checks"].is_array())
    for (const auto& c : report["checks"]) {
      if (!c.is_object() || text(c, "status") != "fail") continue;
      ++failed;
      v.detail.push_back("failed: " + text(c, "name") + ": expected " + text(c, "expected") + ", observed " +
                         text(c, "observed") + (text(c, "detail").empty() ? "" : " (" + text(c, "detail") + ")"));
    }
  if (result == "fail") {
    v.exit_code = 1;
    v.summary = who + " failed its self-test (" + std::to_string(failed) + " failed check" + (failed == 1 ? "" : "s") +
                (v.detail.size() > static_cast<std::size_t>(failed) ? ", planning problems" : "") + "): not joined";
    return v;
  }
  auto status = nlohmann::json::parse(status_text, nullptr, false);
  if (status_text.empty() || status.is_discarded() || !status.is_object()) {
    v.summary = who + " passed, but the guest never said whether it joined";
    return v;
  }
  if (status.value("joined", false)) {
    v.exit_code = 0;
    v.summary = who + " passed its self-test and joined";
    return v;
  }
  v.exit_code = 1;
  v.summary = who + " passed its self-test but did not join (join unit " +
              status.value("ready_unit", std::string("?")) + ", agent exit " +
              (status.contains("agent_exit") ? status["agent_exit"].dump() : "?") + ")";
  for (const auto& line : split(agent_errors, '\n'))
    if (!trim(line).empty()) v.detail.push_back("agent: " + trim(line));
  return v;
}

}  // namespace railyard
