// docs/report.schema.json describes what core's to_json(Report) writes: every key of the
// report, of a check, of a phase and of host is a property of the schema, and the schema's
// required keys are always written. (tests/report/schema.sh validates whole reports.)
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "builder/temp_dir.h"
#include "report.h"

using namespace railyard;

namespace {

nlohmann::json schema() {
  return nlohmann::json::parse(test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/docs/report.schema.json"));
}

// Every key of `written` is a property of `described`, and every required key is written.
void described(const nlohmann::ordered_json& written, const nlohmann::json& described, const std::string& what) {
  CAPTURE(what);
  for (auto it = written.begin(); it != written.end(); ++it) {
    CAPTURE(it.key());
    CHECK(described["properties"].contains(it.key()));
  }
  for (const auto& key : described.value("required", nlohmann::json::array())) {
    CAPTURE(key);
    CHECK(written.contains(key.get<std::string>()));
  }
}

}  // namespace

TEST_CASE("report schema: describes every field the agent writes") {
  Report r;
  r.checks.push_back({CheckId::rail(CheckKind::rail_mtu, 0), CheckStatus::pass, "9000", "9000", "", true});
  r.phases.push_back({"verify", 12});
  auto j = to_json(r);
  auto s = schema();
  CHECK(s["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(s["properties"]["schema"]["const"] == kReportSchema);
  described(j, s, "report");
  described(j["checks"][0], s["$defs"]["check"], "check");
  described(j["phases"][0], s["$defs"]["phase"], "phase");
  described(j["host"], s["$defs"]["host"], "host");
  for (auto s_ :
       {CheckStatus::pass, CheckStatus::fail, CheckStatus::skip, CheckStatus::warn, CheckStatus::unsupported}) {
    auto allowed = s["$defs"]["check"]["properties"]["status"]["enum"];
    CHECK(std::find(allowed.begin(), allowed.end(), to_string(s_)) != allowed.end());
  }
}
