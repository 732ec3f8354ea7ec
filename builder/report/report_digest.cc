#include "report/report_digest.h"

#include "report/json_cursor.h"

namespace railyard {

namespace {

using Kind = JsonCursor::Kind;

bool read_string_field(JsonCursor& c, const std::string& key, std::string& out) {
  if (c.peek() != Kind::string) return c.fail("'" + key + "' must be a string");
  return c.read_string(out);
}

bool read_strings(JsonCursor& c, const std::string& key, std::vector<std::string>& out) {
  if (c.peek() != Kind::array) return c.fail("'" + key + "' must be an array of strings");
  c.begin_array();
  while (c.next_element()) {
    if (c.peek() != Kind::string) return c.fail("'" + key + "' must be an array of strings");
    c.read_string(out.emplace_back());
  }
  return !c.failed();
}

bool read_host(JsonCursor& c, ReportDigest& d, std::string& hostname) {
  if (c.peek() != Kind::object) return c.fail("'host' must be an object");
  c.begin_object();
  for (std::string key; c.next_key(key);) {
    if (key == "hostname") read_string_field(c, "host.hostname", hostname);
    else if (key == "kernel") read_string_field(c, "host.kernel", d.kernel);
    else if (key == "boot_id") read_string_field(c, "host.boot_id", d.boot_id);
    else if (key == "drivers") read_strings(c, "host.drivers", d.drivers);
    else c.skip_value();
  }
  return !c.failed();
}

bool read_checks(JsonCursor& c, ReportDigest& d) {
  if (c.peek() != Kind::array) return c.fail("'checks' must be an array");
  c.begin_array();
  std::string name, status;
  while (c.next_element()) {
    std::string where = "checks[" + std::to_string(d.check_count) + "]";
    if (c.peek() != Kind::object) return c.fail(where + " must be an object");
    std::size_t object_at = c.offset(), status_at = 0;
    c.begin_object();
    bool required = true, has_name = false, has_status = false;
    for (std::string key; c.next_key(key);) {
      if (key == "name") has_name = read_string_field(c, where + ".name", name);
      else if (key == "status") {
        c.peek();
        status_at = c.offset();
        has_status = read_string_field(c, where + ".status", status);
      }
      else if (key == "required") {
        if (c.peek() != Kind::boolean) return c.fail(where + ".required must be true or false");
        c.read_bool(required);
      } else if (key == "expected" || key == "observed" || key == "detail") {
        if (c.peek() != Kind::string) return c.fail(where + "." + key + " must be a string");
        c.skip_value();
      } else c.skip_value();
    }
    if (c.failed()) return false;
    if (!has_name || !has_status) return c.fail_at(object_at, where + " has no '" + (has_name ? "status" : "name") + "'");
    auto st = parse_check_status(status);
    if (!st) return c.fail_at(status_at, where + ".status: '" + status + "' is not one of pass, fail, skip, warn, unsupported");
    ++d.check_count;
    if (*st == CheckStatus::fail || (*st == CheckStatus::unsupported && required)) d.failures.push_back({name, *st});
  }
  return !c.failed();
}

bool read_phases(JsonCursor& c, ReportDigest& d) {
  if (c.peek() != Kind::array) return c.fail("'phases' must be an array");
  c.begin_array();
  while (c.next_element()) {
    if (c.peek() != Kind::object) return c.fail("phases[] must be objects {phase, ms}");
    c.begin_object();
    PhaseTiming& p = d.phases.emplace_back();
    for (std::string key; c.next_key(key);) {
      if (key == "phase") read_string_field(c, "phases[].phase", p.phase);
      else if (key == "ms") {
        if (c.peek() != Kind::number) return c.fail("phases[].ms must be a number");
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
  if (c.peek() != Kind::object && !c.failed()) c.fail("a report is a JSON object");
  if (c.begin_object())
    for (std::string key; c.next_key(key);) {
      c.peek();
      std::size_t value_at = c.offset();
      if (key == "schema") {
        double v = 0;
        if (c.peek() != Kind::number) c.fail("'schema' must be a number");
        else if (c.read_number(v) && (v < 1 || v != static_cast<int>(v))) c.fail_at(value_at, "'schema' must be a positive integer");
        d.schema = static_cast<int>(v);
        has_schema = true;
      } else if (key == "node") has_node = read_string_field(c, key, d.node);
      else if (key == "recipe") read_string_field(c, key, d.recipe);
      else if (key == "result") {
        has_result = read_string_field(c, key, result);
        if (has_result && result != "pass" && result != "fail")
          c.fail_at(value_at, "'result' must be \"pass\" or \"fail\", not \"" + result + "\"");
      } else if (key == "started_at") read_string_field(c, key, d.started_at);
      else if (key == "railyard_version") read_string_field(c, key, d.railyard_version);
      else if (key == "host") read_host(c, d, hostname);
      else if (key == "problems") read_strings(c, key, d.problems);
      else if (key == "checks") has_checks = read_checks(c, d);
      else if (key == "phases") read_phases(c, d);
      else c.skip_value();
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
