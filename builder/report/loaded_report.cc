#include "report/loaded_report.h"

#include "report/json_fields.h"
#include "report/report_digest.h"

namespace railyard {

using nlohmann::ordered_json;
using json_fields::str;
using json_fields::strings;

Outcome<LoadedReport> parse_report(std::string_view text) {
  // One validation for every reader: the digest's checks of the contract's fields.
  auto digest = read_digest(text);
  if (!digest.ok()) return Outcome<LoadedReport>::fail(digest.error());
  ordered_json j = ordered_json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return Outcome<LoadedReport>::fail("not valid JSON (invalid UTF-8 in a string?)");

  LoadedReport out;
  out.schema = digest->schema;
  out.passed = digest->passed;
  Report& r = out.report;
  r.node = str(j, "node");
  r.recipe = str(j, "recipe");
  r.railyard_version = str(j, "railyard_version");
  r.started_at = str(j, "started_at");
  if (auto h = j.find("host"); h != j.end() && h->is_object())
    r.host = {str(*h, "hostname"), str(*h, "kernel"), str(*h, "boot_id"), strings(*h, "drivers")};
  r.problems = strings(j, "problems");
  for (const auto& c : j["checks"]) {
    CheckResult cr;
    cr.id = CheckId::parse(str(c, "name"));
    cr.status = *parse_check_status(str(c, "status"));
    cr.expected = str(c, "expected");
    cr.observed = str(c, "observed");
    cr.detail = str(c, "detail");
    cr.required = c.value("required", true);
    r.checks.push_back(std::move(cr));
  }
  r.phases = digest->phases;
  if (auto it = j.find("changes"); it != j.end() && it->is_array()) r.changes = *it;
  if (auto it = j.find("plan"); it != j.end()) r.plan = *it;
  if (auto it = j.find("inventory"); it != j.end()) r.inventory = *it;
  return out;
}

}  // namespace railyard
