// Reading reports back (report_digest.cc for the fleet, loaded_report.cc for one node):
// the golden reports (tests/report/golden/, made by make_reports.py in the agent's exact
// form), what counts against a node, and every way a file can fail to be a report.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "builder/temp_dir.h"
#include "report/report_reader.h"

using namespace railyard;

namespace {

const std::string kGolden = std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/";

std::string golden(const std::string& name) { return test::read_all(kGolden + name + ".json"); }

std::string digest_error(const std::string& text) {
  auto d = read_digest(text);
  return d.ok() ? "" : d.error();
}

const char* kMinimal = R"({"schema": 1, "node": "n1", "result": "pass", "checks": []})";

}  // namespace

TEST_CASE("digest: a passing hgx report") {
  auto d = read_digest(golden("hgx-pass"));
  REQUIRE(d.ok());
  CHECK(d->schema == 1);
  CHECK(d->node == "hgx-r001-n01");
  CHECK(d->recipe == "hgx-h100-8x400g");
  CHECK(d->passed);
  CHECK(d->started_at == "2026-03-10T08:01:00Z");
  CHECK(d->railyard_version == "0.1.0");
  CHECK(d->kernel == "6.8.0-49-generic");
  CHECK(d->drivers == std::vector<std::string>{"doca-ofed-2.10.0", "cuda-13.0"});
  CHECK(d->boot_id.size() == 36);
  CHECK(d->check_count == 297);
  CHECK(d->failures.empty());
  CHECK(d->problems.empty());
  REQUIRE(d->phases.size() == 4);
  CHECK(d->phases[0].phase == "discover");
  CHECK(d->total_ms() == doctest::Approx(d->phases[0].ms + d->phases[1].ms + d->phases[2].ms + d->phases[3].ms));
}

TEST_CASE("report digest: the failing checks are those that count against the node") {
  auto d = read_digest(golden("hgx-pfc-link"));
  REQUIRE(d.ok());
  CHECK_FALSE(d->passed);
  std::vector<std::string> names;
  for (const auto& f : d->failures) names.push_back(f.id.name());
  CHECK(names.size() == 7);
  CHECK(std::find(names.begin(), names.end(), "rails.cross_rdma_write") != names.end());
  CHECK(std::find(names.begin(), names.end(), "rail.7.gpudirect_write") != names.end());

  // Soft-RoCE: PFC and friends are unsupported but best-effort, so the lab node passes.
  auto lab = read_digest(golden("lab-soft-roce"));
  REQUIRE(lab.ok());
  CHECK(lab->passed);
  CHECK(lab->failures.empty());

  // A required unsupported check counts; a best-effort one does not.
  auto r = read_digest(R"({"schema":1,"node":"n","result":"fail","checks":[
      {"name":"a","status":"unsupported","required":true},{"name":"b","status":"unsupported","required":false},
      {"name":"c","status":"unsupported"},{"name":"d","status":"warn"},{"name":"e","status":"fail","required":false}]})");
  REQUIRE(r.ok());
  REQUIRE(r->failures.size() == 3);
  CHECK(r->failures[0].id.name() == "a");
  CHECK(r->failures[1].id.name() == "c");  // required when absent
  CHECK(r->failures[2].id.name() == "e");
  CHECK(r->failures[0].status == CheckStatus::unsupported);
}

TEST_CASE("report digest: planning problems; the host name stands in for a missing node identity") {
  auto d = read_digest(golden("storage-problem"));
  REQUIRE(d.ok());
  CHECK(d->problems == std::vector<std::string>{"the recipe wants 4 rails; 3 RDMA NIC(s) found"});
  CHECK(d->check_count == 0);

  auto anon = read_digest(R"({"schema":1,"node":"","host":{"hostname":"localhost-7"},"result":"pass","checks":[]})");
  REQUIRE(anon.ok());
  CHECK(anon->node == "localhost-7");
}

TEST_CASE("report digest: unknown keys anywhere are ignored (fields are added within a schema)") {
  auto d = read_digest(R"({"future": {"x": [1, {"y": null}]}, "schema": 1, "node": "n1", "result": "pass",
                          "checks": [{"name": "a", "status": "pass", "new_field": [true]}], "host": {"gpu_driver": "580"}})");
  REQUIRE(d.ok());
  CHECK(d->check_count == 1);
}

TEST_CASE("digest: what is not a report is refused with the reason") {
  CHECK(digest_error(kMinimal) == "");
  CHECK(digest_error("[1, 2]") == "line 1, column 1: a report is a JSON object");
  CHECK(digest_error(R"({"schema": 1, "node": "n1", "result": "pass"})") == "not a railyard report: no 'checks'");
  CHECK(digest_error(R"({"node": "n1", "result": "pass", "checks": []})") == "not a railyard report: no 'schema'");
  CHECK(digest_error(R"({"schema": 1, "result": "pass", "checks": []})") == "not a railyard report: no 'node'");
  CHECK(digest_error(R"({"schema": 1, "node": "n1", "checks": []})") == "not a railyard report: no 'result'");
  CHECK(digest_error(R"({"schema": 2, "node": "n1", "result": "pass", "checks": []})") ==
        "report schema 2 is newer than this railyard reads (1)");
  CHECK(digest_error(R"({"schema": 1.5, "node": "n1", "result": "pass", "checks": []})") ==
        "line 1, column 12: 'schema' must be a positive integer");
  CHECK(digest_error(R"({"schema": "1", "node": "n1", "result": "pass", "checks": []})") ==
        "line 1, column 12: 'schema' must be a number");
  CHECK(digest_error(R"({"schema": 1, "node": 7, "result": "pass", "checks": []})") ==
        "line 1, column 23: 'node' must be a string");
  CHECK(digest_error(R"({"schema": 1, "node": "n", "result": "ok", "checks": []})") ==
        "line 1, column 38: 'result' must be \"pass\" or \"fail\", not \"ok\"");
  CHECK(digest_error(R"({"schema": 1, "node": "n", "result": "pass", "checks": {}})") ==
        "line 1, column 56: 'checks' must be an array");
  CHECK(digest_error(R"({"schema":1,"node":"n","result":"pass","checks":[{"name":"a","status":"ok"}]})") ==
        "line 1, column 71: checks[0].status: 'ok' is not one of pass, fail, skip, warn, unsupported");
  CHECK(digest_error(R"({"schema":1,"node":"n","result":"pass","checks":[{"status":"pass"}]})") ==
        "line 1, column 50: checks[0] has no 'name'");
  CHECK(
      digest_error(R"({"schema":1,"node":"n","result":"pass","checks":[{"name":"a","status":"pass","observed":3}]})") ==
      "line 1, column 89: checks[0].observed must be a string");
  CHECK(digest_error(R"({"schema":1,"node":"n","result":"pass","checks":[],"phases":[{"phase":"apply","ms":"1"}]})") ==
        "line 1, column 84: phases[].ms must be a number");
  CHECK(digest_error(R"({"schema":1,"node":"n","result":"pass","checks":[],"host":{"drivers":"x"}})") ==
        "line 1, column 70: 'host.drivers' must be an array of strings");
}

TEST_CASE("digest: a truncated golden report is refused wherever it is cut") {
  std::string text = golden("gpu-nic-sys-default-route");
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, text.size() / 3, text.size() / 2, text.size() - 3}) {
    CAPTURE(n);
    CHECK(digest_error(text.substr(0, n)) != "");
  }
}

TEST_CASE("loaded report: every golden report reads back into the model and writes out the same bytes") {
  // The goldens are in the agent's exact form: to_json(Report).dump(2) reproduces each file.
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGolden)) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    CAPTURE(entry.path().string());
    std::string text = test::read_all(entry.path().string());
    auto r = parse_report(text);
    REQUIRE(r.ok());
    CHECK(to_json(r->report).dump(2) + "\n" == text);
    CHECK(r->passed == r->report.passed());
    CHECK(r->schema == 1);
  }
  CHECK(seen >= 7);
}

TEST_CASE("loaded report: fields, and the host name as the name without a node identity") {
  auto r = parse_report(golden("gpu4-downtrained-nvmeof"));
  REQUIRE(r.ok());
  CHECK(r->name() == "g4-r002-n07");
  CHECK(r->report.host.kernel == "6.8.0-49-generic");
  CHECK(r->report.inventory["gpus"].size() == 4);
  CHECK(r->report.plan["rails"].size() == 4);
  CHECK(r->report.failed_count() == 3);

  auto anon = parse_report(R"({"schema":1,"node":"","host":{"hostname":"h1","kernel":"k","boot_id":"b","drivers":[]},
                               "result":"pass","checks":[{"name":"a","status":"pass"}]})");
  REQUIRE(anon.ok());
  CHECK(anon->name() == "h1");
  CHECK(anon->report.checks[0].required);
  CHECK(anon->report.inventory.is_null());
}

TEST_CASE("loaded report: the same refusals as the digest; invalid UTF-8 too") {
  auto r = parse_report(R"({"schema": 1, "node": "n1", "result": "pass"})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "not a railyard report: no 'checks'");
  auto bad = parse_report("{\"schema\": 1, \"node\": \"n\xff\", \"result\": \"pass\", \"checks\": []}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "line 1, column 25: invalid string: ill-formed UTF-8 byte");
}

TEST_CASE("report reader: text that is not JSON is refused where it goes wrong, as malformed") {
  ReportReader reader;
  auto error = [&](const std::string& text) {
    auto r = reader.whole(text);
    CHECK(reader.fault() == (r.ok() ? ReportFault::none : ReportFault::malformed));
    return r.ok() ? std::string() : r.error();
  };
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  CHECK(error("{" + tail) == "");
  CHECK(error("") == "line 1, column 1: unexpected end of input; expected '[', '{', or a literal");
  CHECK(error("{\n  \"a\": 1,\n  \"b\" 2\n}") == "line 3, column 7: unexpected number literal; expected ':'");
  CHECK(error("{" + tail + " {}") == "line 1, column 61: unexpected '{'; expected end of input");
  CHECK(error("{\"s\": \"tab\there\", " + tail) ==
        "line 1, column 11: invalid string: control character U+0009 (HT) must be escaped to \\u0009 or \\t");
  // A whole report is checked in full: unknown keys, the plan, changes and inventory too.
  CHECK(error(R"({"future": [1, 2,], )" + tail) ==
        "line 1, column 18: unexpected ']'; expected '[', '{', or a literal");
  CHECK(error(R"({"plan": {"a": tru}, )" + tail) == "line 1, column 19: invalid literal");
  CHECK(
      error(
          R"({"checks": [{"name": "a", "status": "pass", "new": [1 2]}], "schema": 1, "node": "n", "result": "pass"})") ==
      "line 1, column 55: unexpected number literal; expected ']'");
  CHECK(error(R"({"host": {"gpu_driver": nul}, )" + tail) == "line 1, column 28: invalid literal");
}

TEST_CASE("report reader: a digest checks what it reads and steps over the rest by its brackets") {
  ReportReader reader;
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  // What a digest reads is checked against the grammar...
  auto bad = reader.digest(
      R"({"schema": 1, "node": "n1", "result": "pass", "checks": [{"name": "a", "status": "pass", "required": tru}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(reader.fault() == ReportFault::malformed);
  CHECK(bad.error() == "line 1, column 105: invalid literal");
  // ...what it steps over is not, past its strings, UTF-8 and brackets: the fleet's files
  // came through the receiver, which read them whole. Cut short, they are refused.
  CHECK(reader.digest(R"({"plan": {"a": [1, 2,]}, )" + tail).ok());
  CHECK_FALSE(reader.whole(R"({"plan": {"a": [1, 2,]}, )" + tail).ok());
  for (const char* cut : {R"({"plan": {"a": [1, 2)", R"({"plan": {"a": "x)", "{\"plan\": \"\xff\", "})
    CHECK_FALSE(reader.digest(cut + tail).ok());
  // Deep nesting: a whole read refuses it (the views would recurse through it); a digest
  // steps over it, building nothing of it.
  std::string deep = R"({"plan": )" + std::string(5000, '[') + std::string(5000, ']') + ", " + tail;
  CHECK(reader.digest(deep).ok());
  auto whole = reader.whole(deep);
  REQUIRE_FALSE(whole.ok());
  CHECK(reader.fault() == ReportFault::not_a_report);
  CHECK(whole.error() == "line 1, column 10: nesting deeper than 64 levels");
  // The reader keeps working after a refusal.
  CHECK(reader.digest("{" + tail).ok());
  CHECK(reader.fault() == ReportFault::none);
}

TEST_CASE("report reader: JSON that is not a report is not_a_report, not malformed") {
  ReportReader reader;
  CHECK_FALSE(reader.whole(R"({"hello": "world"})").ok());
  CHECK(reader.fault() == ReportFault::not_a_report);
  CHECK_FALSE(reader.digest(R"({"schema": 1, "node": 7, "result": "pass", "checks": []})").ok());
  CHECK(reader.fault() == ReportFault::not_a_report);
}

TEST_CASE("report reader: a number no double holds is an error at its place, never an exception") {
  ReportReader reader;
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  for (
      const std::string& text :
      {R"({"plan": {"rails": [1e999]}, )" + tail, R"({"future": -1e999, )" + tail,
       std::string(R"({"schema": 1e999, "node": "n1", "result": "pass", "checks": []})"),
       R"({"phases": [{"phase": "apply", "ms": 1e999}], )" + tail,
       std::string(
           R"({"checks": [{"name": "a", "status": "pass", "x": 1e999}], "schema": 1, "node": "n", "result": "pass"})")}) {
    CAPTURE(text);
    auto whole = reader.whole(text);
    REQUIRE_FALSE(whole.ok());
    CHECK(reader.fault() == ReportFault::malformed);
    CHECK(whole.error().find("number out of range (no double holds it)") != std::string::npos);
    CHECK_FALSE(reader.checked(text).ok());
  }
  auto at = reader.whole(R"({"schema": 1e999, "node": "n1", "result": "pass", "checks": []})");
  CHECK(at.error() == "line 1, column 12: number out of range (no double holds it)");
  auto in_plan = reader.whole(R"({"plan": {"rails": [1, 1e999]}, )" + tail);
  CHECK(in_plan.error() == "line 1, column 24: number out of range (no double holds it)");
  // What a digest reads, likewise; what it steps over it does not read.
  CHECK(reader.digest(R"({"schema": 1e999, "node": "n1", "result": "pass", "checks": []})").error() ==
        "line 1, column 12: number out of range (no double holds it)");
  CHECK(reader.digest(R"({"plan": [1e999], )" + tail).ok());
}

TEST_CASE("report reader: numbers are range-checked before a view prints or casts them") {
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  CHECK(digest_error(R"({"phases": [{"phase": "apply", "ms": -153722867280912930}], )" + tail) ==
        "line 1, column 38: phases[].ms is out of range; allowed: 0 to 604800000 (a week, in milliseconds)");
  CHECK(digest_error(R"({"phases": [{"phase": "apply", "ms": 1e300}], )" + tail).find("out of range") !=
        std::string::npos);
  CHECK(digest_error(R"({"phases": [{"phase": "apply", "ms": 604800000}], )" + tail) == "");
  CHECK(digest_error(R"({"schema": 1e300, "node": "n1", "result": "pass", "checks": []})") ==
        "line 1, column 12: 'schema' is out of range; allowed: a positive integer");
  CHECK(digest_error(R"({"schema": -1, "node": "n1", "result": "pass", "checks": []})") ==
        "line 1, column 12: 'schema' is out of range; allowed: a positive integer");
}

TEST_CASE("report reader: a key twice is refused: at the top level, and in any value read whole") {
  ReportReader reader;
  auto twice = reader.whole(
      R"({"schema": 1, "node": "n1", "result": "pass", "checks": [], "checks": [{"name": "a", "status": "fail"}]})");
  REQUIRE_FALSE(twice.ok());
  CHECK(reader.fault() == ReportFault::not_a_report);
  CHECK(twice.error() == "line 1, column 71: the key 'checks' appears twice in the report");
  CHECK(digest_error(R"({"schema": 1, "node": "n1", "node": "n2", "result": "pass", "checks": []})") ==
        "line 1, column 37: the key 'node' appears twice in the report");
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  auto nested = reader.whole(R"({"plan": {"rails": [{"a": 1, "a": 2}]}, )" + tail);
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error() == "line 1, column 10: the key 'a' appears twice in one object");
  CHECK_FALSE(reader.checked(R"({"plan": {"rails": [{"a": 1, "a": 2}]}, )" + tail).ok());
  // The same key in two objects is two keys.
  CHECK(reader.whole(R"({"plan": {"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}, )" + tail).ok());
}

TEST_CASE("report reader: a value of 100,000 members is read in one pass, kept in its order") {
  const std::string tail = R"("schema": 1, "node": "n1", "result": "pass", "checks": []})";
  std::string many = "{";
  for (int i = 0; i < 100000; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":{}";
  many += "}";
  std::string empties = "[";
  for (int i = 0; i < 100000; ++i) empties += i ? ",{}" : "{}";
  empties += "]";
  auto r = parse_report(R"({"plan": )" + many + R"(, "changes": )" + empties + ", " + tail);
  REQUIRE(r.ok());
  REQUIRE(r->report.plan.size() == 100000);
  CHECK(r->report.plan.begin().key() == "k0");
  CHECK((--r->report.plan.end()).key() == "k99999");
  CHECK(r->report.plan["k500"].is_object());
  CHECK(r->report.changes.size() == 100000);
}

TEST_CASE("report reader: checked() reads every field but builds none of the values only carried") {
  ReportReader reader;
  auto r = reader.checked(golden("gpu4-downtrained-nvmeof"));
  REQUIRE(r.ok());
  CHECK(r->name() == "g4-r002-n07");
  CHECK(r->report.failed_count() == 3);
  CHECK(r->report.plan.is_null());
  CHECK(r->report.inventory.is_null());
  auto whole = reader.whole(golden("gpu4-downtrained-nvmeof"));
  REQUIRE(whole.ok());
  CHECK(whole->report.plan["rails"].size() == 4);
}

TEST_CASE("report reader: the node a report is for, read without the rest") {
  ReportReader reader;
  CHECK(reader.node_name(R"({"node": "n1", "plan": [{},{},,{}]})") == "n1");  // the rest is not read
  CHECK(reader.node_name(R"({"node": "", "host": {"kernel": "k", "hostname": "h1"}, "x": 1})") == "h1");
  CHECK(reader.node_name(R"({"host": {"hostname": "h1"}, "node": "n1"})") == "n1");
  CHECK(reader.node_name(R"({"plan": [1, 2, 3]})") == std::nullopt);
  CHECK(reader.node_name(R"([1])") == std::nullopt);
  CHECK(reader.node_name(R"({"node": 7})") == std::nullopt);
  CHECK(reader.node_name("") == std::nullopt);
}

TEST_CASE("report reader: what a report says is escaped in the reader's own errors") {
  CHECK(digest_error("{\"schema\": 1, \"node\": \"n\", \"result\": \"\\u001b]0;owned\\u0007\", \"checks\": []}") ==
        "line 1, column 38: 'result' must be \"pass\" or \"fail\", not \"\\x1b]0;owned\\x07\"");
  CHECK(digest_error("{\"schema\":1,\"node\":\"n\",\"result\":\"pass\",\"checks\":[{\"name\":\"a\",\"status\":"
                     "\"\\u202epass\"}]}") ==
        "line 1, column 71: checks[0].status: '\\u202epass' is not one of pass, fail, skip, warn, unsupported");
  CHECK(digest_error("{\"schema\": 1, \"node\": \"n\", \"result\": \"pass\", \"checks\": [], \"\\u001b[2J\": 1, "
                     "\"\\u001b[2J\": 2}")
            .find("the key '\\x1b[2J' appears twice") != std::string::npos);
}

TEST_CASE("report reader: an unclosed bracket on every byte is malformed, said where, without a DOM") {
  ReportReader reader;
  std::string deep = R"({"plan": )" + std::string(1u << 20, '[');
  auto r = reader.whole(deep);
  REQUIRE_FALSE(r.ok());
  CHECK(reader.fault() == ReportFault::malformed);
  CHECK(r.error() == "line 1, column " + std::to_string(deep.size() + 1) +
                         ": unexpected end of input; expected '[', '{', or a literal");
}
