#include "report/report_digest.h"

#include "report/json_cursor.h"

namespace railyard {

namespace {

using Kind = JsonCursor::Kind;

// Whether the next value is of kind `want`; if not, the error says why: the grammar's
// complaint when it is not JSON at all, else `wrong_kind()` (built only then: a fleet has
// millions of values).
template <class Message>
bool expect_kind(JsonCursor& c, Kind want, Message wrong_kind) {
  Kind k = c.peek();
  if (k == want) return true;
  if (k == Kind::end) return c.fail("unexpected end of input, expected a value");
  if (k == Kind::invalid) return c.skip_value();  // sets the grammar's error
  return c.fail(wrong_kind());
}

bool read_string_field(JsonCursor& c, const char* key, std::string& out) {
  return expect_kind(c, Kind::string, [&] { return "'" + std::string(key) + "' must be a string"; }) && c.read_string(out);
}

bool read_strings(JsonCursor& c, const char* key, std::vector<std::string>& out) {
  auto wrong = [&] { return "'" + std::string(key) + "' must be an array of strings"; };
  if (!expect_kind(c, Kind::array, wrong)) return false;
  c.begin_array();
  while (c.next_element())
    if (!expect_kind(c, Kind::string, wrong) || !c.read_string(out.emplace_back())) return false;
  return !c.failed();
}

bool read_host(JsonCursor& c, ReportDigest& d, std::string& hostname) {
  if (!expect_kind(c, Kind::object, [] { return "'host' must be an object"; })) return false;
  c.begin_object();
  for (std::string_view key; c.next_key(key);) {
    if (key == "hostname") read_string_field(c, "host.hostname", hostname);
    else if (key == "kernel") read_string_field(c, "host.kernel", d.kernel);
    else if (key == "boot_id") read_string_field(c, "host.boot_id", d.boot_id);
    else if (key == "drivers") read_strings(c, "host.drivers", d.drivers);
    else c.skip_value();
  }
  return !c.failed();
}

bool read_checks(JsonCursor& c, ReportDigest& d) {
  if (!expect_kind(c, Kind::array, [] { return "'checks' must be an array"; })) return false;
  c.begin_array();
  std::string name, status;
  std::string_view key;
  while (c.next_element()) {
    auto where = [&](const char* what) { return "checks[" + std::to_string(d.check_count) + "]" + what; };
    if (!expect_kind(c, Kind::object, [&] { return where(" must be an object"); })) return false;
    std::size_t object_at = c.offset(), status_at = 0;
    c.begin_object();
    bool required = true, has_name = false, has_status = false;
    while (c.next_key(key)) {
      if (key == "name") {
        has_name = expect_kind(c, Kind::string, [&] { return where(".name must be a string"); }) && c.read_string(name);
      } else if (key == "status") {
        c.peek();
        status_at = c.offset();
        has_status = expect_kind(c, Kind::string, [&] { return where(".status must be a string"); }) && c.read_string(status);
      } else if (key == "required") {
        if (!expect_kind(c, Kind::boolean, [&] { return where(".required must be true or false"); })) return false;
        c.read_bool(required);
      } else if (key == "expected" || key == "observed" || key == "detail") {
        if (!expect_kind(c, Kind::string, [&] { return where(("." + std::string(key) + " must be a string").c_str()); })) return false;
        c.skip_value();
      } else c.skip_value();
    }
    if (c.failed()) return false;
    if (!has_name || !has_status) return c.fail_at(object_at, where(has_name ? " has no 'status'" : " has no 'name'"));
    auto st = parse_check_status(status);
    if (!st) return c.fail_at(status_at, where(".status: '") + status + "' is not one of pass, fail, skip, warn, unsupported");
    ++d.check_count;
    if (*st == CheckStatus::fail || (*st == CheckStatus::unsupported && required)) d.failures.push_back({CheckId::parse(name), *st});
  }
  return !c.failed();
}

bool read_phases(JsonCursor& c, ReportDigest& d) {
  if (!expect_kind(c, Kind::array, [] { return "'phases' must be an array"; })) return false;
  c.begin_array();
  std::string_view key;
  while (c.next_element()) {
    if (!expect_kind(c, Kind::object, [] { return "phases[] must be objects {phase, ms}"; })) return false;
    c.begin_object();
    PhaseTiming& p = d.phases.emplace_back();
    while (c.next_key(key)) {
      if (key == "phase") read_string_field(c, "phases[].phase", p.phase);
      else if (key == "ms") {
        if (!expect_kind(c, Kind::number, [] { return "phases[].ms must be a number"; })) return false;
        c.read_number(p.ms);
      } else c.skip_value();
    }
  }
  return !c.failed();
}

}  // namespace

double ReportDigest::total_ms() const {
  double t = 0;
  for (const auto& p : phases) t += p.ms;
  return t;
}

Outcome<ReportDigest> read_digest(std::string_view text) {
  ReportDigest d;
  JsonCursor c(text);
  bool has_schema = false, has_node = false, has_result = false, has_checks = false;
  std::string hostname, result;
  if (expect_kind(c, Kind::object, [] { return "a report is a JSON object"; }) && c.begin_object())
    for (std::string_view key; c.next_key(key);) {
      c.peek();
      std::size_t value_at = c.offset();
      if (key == "schema") {
        double v = 0;
        if (expect_kind(c, Kind::number, [] { return "'schema' must be a number"; }) && c.read_number(v) &&
            (v < 1 || v != static_cast<int>(v)))
          c.fail_at(value_at, "'schema' must be a positive integer");
        d.schema = static_cast<int>(v);
        has_schema = true;
      } else if (key == "node") has_node = read_string_field(c, "node", d.node);
      else if (key == "recipe") read_string_field(c, "recipe", d.recipe);
      else if (key == "result") {
        has_result = read_string_field(c, "result", result);
        if (has_result && result != "pass" && result != "fail")
          c.fail_at(value_at, "'result' must be \"pass\" or \"fail\", not \"" + result + "\"");
      } else if (key == "started_at") read_string_field(c, "started_at", d.started_at);
      else if (key == "railyard_version") read_string_field(c, "railyard_version", d.railyard_version);
      else if (key == "host") read_host(c, d, hostname);
      else if (key == "problems") read_strings(c, "problems", d.problems);
      else if (key == "checks") has_checks = read_checks(c, d);
      else if (key == "phases") read_phases(c, d);
      else c.skip_balanced();  // plan, changes, inventory: most of the bytes, none of the summary
    }
  if (!c.finish()) return Outcome<ReportDigest>::fail(c.error());
  for (auto [has, name] : {std::pair{has_schema, "schema"}, {has_node, "node"}, {has_result, "result"}, {has_checks, "checks"}})
    if (!has) return Outcome<ReportDigest>::fail(std::string("not a railyard report: no '") + name + "'");
  if (d.schema > kReportSchema)
    return Outcome<ReportDigest>::fail("report schema " + std::to_string(d.schema) + " is newer than this railyard reads (" +
                                       std::to_string(kReportSchema) + ")");
  d.passed = result == "pass";
  if (d.node.empty()) d.node = hostname;
  return d;
}

}  // namespace railyard
