#include "report/report_reader.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "report/report_source.h"

namespace railyard {

namespace od = simdjson::ondemand;
using nlohmann::ordered_json;
using simdjson::error_code;

struct ReportReader::Parser {
  od::parser parser;
  std::string buffer;  // the text, and after it the padding simdjson reads past the end
};

namespace {

// "line L, column C" of a byte offset (columns count bytes, from 1).
std::string where(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// What is wrong with text that simdjson would not read: nlohmann::json's grammar says
// where and what, in words ("line 2, column 1: unexpected end of input; ..."). Used only on
// the way out, so a fleet of good reports never pays for it.
std::string grammar_error(std::string_view text, error_code code, std::size_t at) {
  try {
    [[maybe_unused]] ordered_json j = ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error while
    // parsing value - invalid literal; last read: 'tru}'; expected ...": the words after the
    // dash, without the text last read (it may be anything, invalid UTF-8 included).
    std::string what = e.what();
    if (std::size_t dash = what.find(" - "); dash != std::string::npos) what = what.substr(dash + 3);
    else if (std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    if (std::size_t last = what.find("; last read: '"); last != std::string::npos) {
      std::size_t expected = what.rfind("'; expected ");
      what = what.substr(0, last) + (expected != std::string::npos && expected > last ? what.substr(expected + 1) : "");
    }
    return where(text, e.byte == 0 ? 0 : e.byte - 1) + ": " + what;
  }
  // JSON by the grammar, but past what simdjson reads (nesting deeper than it allows).
  return where(text, at) + ": " + simdjson::error_message(code);
}

// One pass over one report. `whole` decides between the digest (the summary's fields) and
// the whole report (every field, into the model).
class Walk {
 public:
  static constexpr int kMaxDepth = 64;

  Walk(std::string_view text, const char* base, bool whole) : text_(text), base_(base), whole_(whole) {}

  bool report(od::document& doc);

  ReportDigest digest;
  LoadedReport loaded;
  bool has_schema = false, has_node = false, has_result = false, has_checks = false;
  std::string hostname;

  ReportFault fault = ReportFault::none;
  std::string error;

 private:
  // The text is not JSON (simdjson's code, at the reader's place): the grammar says why.
  bool malformed(error_code code, const char* at = nullptr) {
    fault = ReportFault::malformed;
    error = grammar_error(text_, code, at ? static_cast<std::size_t>(at - base_) : 0);
    return false;
  }
  // JSON, but not a report: what is wrong, at the value.
  bool refuse(const char* at, const std::string& what) {
    fault = ReportFault::not_a_report;
    error = where(text_, static_cast<std::size_t>(at - base_)) + ": " + what;
    return false;
  }
  static const char* at(od::value& v) { return v.raw_json_token().data(); }

  // Whether `v` is of type `want`; if not, why: the grammar's complaint, or `wrong()`
  // (built only then: a fleet has millions of values).
  template <class Wrong>
  bool is(od::value& v, od::json_type want, Wrong wrong) {
    od::json_type t;
    if (error_code e = v.type().get(t)) return malformed(e, at(v));
    return t == want || refuse(at(v), wrong());
  }
  // A string; `subject()` names it in the error ("'node'", "checks[3].name"). A view
  // stays valid while the reader reads this report.
  template <class Subject>
  bool string(od::value& v, Subject subject, std::string_view& out) {
    if (!is(v, od::json_type::string, [&] { return std::string(subject()) + " must be a string"; })) return false;
    if (error_code e = v.get_string().get(out)) return malformed(e, at(v));
    return true;
  }
  template <class Subject>
  bool string(od::value& v, Subject subject, std::string& out) {
    std::string_view s;
    if (!string(v, subject, s)) return false;
    out.assign(s);
    return true;
  }
  bool string(od::value& v, const char* subject, std::string& out) {
    return string(v, [subject] { return subject; }, out);
  }
  // Each element of the array `v` to `element(value)`; `wrong()` says why `v` is not one.
  template <class Wrong, class Element>
  bool each_element(od::value& v, Wrong wrong, Element element) {
    od::array array;
    if (!is(v, od::json_type::array, wrong)) return false;
    if (error_code e = v.get_array().get(array)) return malformed(e, at(v));
    for (auto item : array) {
      od::value x;
      if (error_code e = std::move(item).get(x)) return malformed(e);
      if (!element(x)) return false;
    }
    return true;
  }
  // Each member of the object `v` to `member(key, value)`.
  template <class Wrong, class Member>
  bool each_member(od::value& v, Wrong wrong, Member member) {
    od::object object;
    if (!is(v, od::json_type::object, wrong)) return false;
    if (error_code e = v.get_object().get(object)) return malformed(e, at(v));
    for (auto item : object) {
      od::field x;
      std::string_view key;
      if (error_code e = std::move(item).get(x); e || (e = x.unescaped_key().get(key))) return malformed(e);
      if (!member(key, x.value())) return false;
    }
    return true;
  }
  bool strings(od::value& v, const char* subject, std::vector<std::string>& out);
  bool number(od::value& v, const char* subject, double& out) {
    if (!is(v, od::json_type::number, [&] { return std::string(subject) + " must be a number"; })) return false;
    if (error_code e = v.get_double().get(out)) return malformed(e, at(v));
    return true;
  }
  // A value kept as JSON (the plan, changes, inventory), or only checked (an unknown key):
  // nlohmann::json reads its text whole. A digest steps over it.
  bool json(od::value& v, ordered_json* out);
  bool host(od::value& v);
  bool checks(od::value& v);
  bool check(od::value& v, int index);
  bool phases(od::value& v);

  std::string_view text_;
  const char* base_;
  bool whole_;
};

bool Walk::strings(od::value& v, const char* subject, std::vector<std::string>& out) {
  auto wrong = [&] { return std::string(subject) + " must be an array of strings"; };
  return each_element(v, wrong, [&](od::value& s) {
    std::string_view text;
    if (!is(s, od::json_type::string, wrong)) return false;
    if (error_code e = s.get_string().get(text)) return malformed(e, at(s));
    out.emplace_back(text);
    return true;
  });
}

bool Walk::json(od::value& v, ordered_json* out) {
  if (!whole_) return true;
  od::json_type t;
  const char* start = at(v);
  if (error_code e = v.type().get(t)) return malformed(e, start);
  std::string_view raw;
  if (t == od::json_type::object) {
    od::object o;
    if (error_code e = v.get_object().get(o); e || (e = o.raw_json().get(raw))) return malformed(e, start);
  } else if (t == od::json_type::array) {
    od::array a;
    if (error_code e = v.get_array().get(a); e || (e = a.raw_json().get(raw))) return malformed(e, start);
  } else {
    raw = v.raw_json_token();
  }
  // The views walk these values and write them out again, recursively: deep nesting is
  // refused here (no report nests more than a few levels).
  bool too_deep = false;
  ordered_json::parser_callback_t depth = [&](int d, ordered_json::parse_event_t, ordered_json&) {
    too_deep |= d > kMaxDepth;
    return true;
  };
  ordered_json parsed = ordered_json::parse(raw, depth, false);
  if (parsed.is_discarded()) return malformed(simdjson::TAPE_ERROR, start);
  if (too_deep) return refuse(start, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  if (out) *out = std::move(parsed);
  return true;
}

bool Walk::host(od::value& v) {
  auto wrong = [] { return std::string("'host' must be an object"); };
  bool ok = each_member(v, wrong, [&](std::string_view key, od::value& value) {
    return key == "hostname"  ? string(value, "'host.hostname'", hostname)
           : key == "kernel"  ? string(value, "'host.kernel'", digest.kernel)
           : key == "boot_id" ? string(value, "'host.boot_id'", digest.boot_id)
           : key == "drivers" ? strings(value, "'host.drivers'", digest.drivers)
                              : json(value, nullptr);
  });
  if (ok && whole_) loaded.report.host = {hostname, digest.kernel, digest.boot_id, digest.drivers};
  return ok;
}

bool Walk::checks(od::value& v) {
  return each_element(v, [] { return std::string("'checks' must be an array"); }, [&](od::value& c) {
    if (!check(c, digest.check_count)) return false;
    ++digest.check_count;
    return true;
  });
}

bool Walk::check(od::value& v, int index) {
  auto name_of = [index](std::string_view what) { return "checks[" + std::to_string(index) + "]" + std::string(what); };
  const char* object_at = at(v);
  CheckResult cr;
  std::string_view name, status;
  const char* status_at = nullptr;
  bool has_name = false, has_status = false;
  auto member = [&](std::string_view key, od::value& value) {
    if (key == "name") return has_name = string(value, [&] { return name_of(".name"); }, name);
    if (key == "status") {
      status_at = at(value);
      return has_status = string(value, [&] { return name_of(".status"); }, status);
    }
    if (key == "required") {
      if (!is(value, od::json_type::boolean, [&] { return name_of(".required must be true or false"); })) return false;
      if (error_code e = value.get_bool().get(cr.required)) return malformed(e, at(value));
      return true;
    }
    if (key == "expected" || key == "observed" || key == "detail") {
      auto subject = [&] { return name_of("." + std::string(key)); };
      if (!whole_)  // a digest checks their type and keeps none of them
        return is(value, od::json_type::string, [&] { return subject() + " must be a string"; });
      return string(value, subject, key == "expected" ? cr.expected : key == "observed" ? cr.observed : cr.detail);
    }
    return json(value, nullptr);
  };
  if (!each_member(v, [&] { return name_of(" must be an object"); }, member)) return false;
  if (!has_name || !has_status) return refuse(object_at, name_of(has_name ? " has no 'status'" : " has no 'name'"));
  auto st = parse_check_status(std::string(status));
  if (!st)
    return refuse(status_at,
                  name_of(".status: '") + std::string(status) + "' is not one of pass, fail, skip, warn, unsupported");
  cr.status = *st;
  cr.id = CheckId::parse(name);
  std::uint8_t& worst = digest.worst[static_cast<std::size_t>(cr.id.kind)];
  worst = std::max(worst, worst_rank(cr.status));
  if (!whole_ && !cr.failing()) return true;  // a digest keeps only the checks that count
  if (cr.failing()) digest.failures.push_back({cr.id, cr.status});
  if (whole_) loaded.report.checks.push_back(std::move(cr));
  return true;
}

bool Walk::phases(od::value& v) {
  return each_element(v, [] { return std::string("'phases' must be an array"); }, [&](od::value& p) {
    PhaseTiming& t = digest.phases.emplace_back();
    return each_member(p, [] { return std::string("phases[] must be objects {phase, ms}"); },
                       [&](std::string_view key, od::value& value) {
                         return key == "phase" ? string(value, "'phases[].phase'", t.phase)
                                : key == "ms"  ? number(value, "phases[].ms", t.ms)
                                               : json(value, nullptr);
                       });
  });
}

bool Walk::report(od::document& doc) {
  od::object top;
  od::json_type t;
  if (error_code e = doc.type().get(t)) return malformed(e);
  if (t != od::json_type::object) return refuse(base_, "a report is a JSON object");
  if (error_code e = doc.get_object().get(top)) return malformed(e);
  Report& r = loaded.report;
  std::string result;
  for (auto f : top) {
    od::field field;
    std::string_view key;
    if (error_code e = std::move(f).get(field); e || (e = field.unescaped_key().get(key))) return malformed(e);
    od::value& value = field.value();
    bool ok = true;
    if (key == "schema") {
      const char* value_at = at(value);
      double v = 0;
      ok = number(value, "'schema'", v);
      if (ok && (v < 1 || v != static_cast<int>(v))) return refuse(value_at, "'schema' must be a positive integer");
      digest.schema = static_cast<int>(v);
      has_schema = true;
    } else if (key == "node") ok = has_node = string(value, "'node'", digest.node);
    else if (key == "recipe") ok = string(value, "'recipe'", digest.recipe);
    else if (key == "result") {
      const char* value_at = at(value);
      ok = has_result = string(value, "'result'", result);
      if (ok && result != "pass" && result != "fail")
        return refuse(value_at, "'result' must be \"pass\" or \"fail\", not \"" + result + "\"");
    } else if (key == "started_at") ok = string(value, "'started_at'", digest.started_at);
    else if (key == "railyard_version") ok = string(value, "'railyard_version'", digest.railyard_version);
    else if (key == "host") ok = host(value);
    else if (key == "problems") ok = strings(value, "'problems'", digest.problems);
    else if (key == "checks") ok = has_checks = checks(value);
    else if (key == "phases") ok = phases(value);
    else if (key == "changes") ok = json(value, &r.changes);
    else if (key == "plan") ok = json(value, &r.plan);
    else if (key == "inventory") ok = json(value, &r.inventory);
    else if (key == "lldp") ok = json(value, &r.lldp);
    else if (key == "modules") ok = json(value, &r.modules);
    else if (key == "join") ok = json(value, &r.join);
    else ok = json(value, nullptr);
    if (!ok) return false;
  }
  // Nothing but white space after the report.
  const char* rest = nullptr;
  if (!doc.current_location().get(rest)) return malformed(simdjson::TRAILING_CONTENT, rest);
  for (auto [has, name] : {std::pair{has_schema, "schema"}, {has_node, "node"}, {has_result, "result"}, {has_checks, "checks"}})
    if (!has) {
      fault = ReportFault::not_a_report;
      error = std::string("not a railyard report: no '") + name + "'";
      return false;
    }
  if (digest.schema > kReportSchema) {
    fault = ReportFault::not_a_report;
    error = "report schema " + std::to_string(digest.schema) + " is newer than this railyard reads (" +
            std::to_string(kReportSchema) + ")";
    return false;
  }
  digest.passed = result == "pass";
  if (whole_) {
    loaded.schema = digest.schema;
    loaded.passed = digest.passed;
    r.node = digest.node;
    r.recipe = digest.recipe;
    r.railyard_version = digest.railyard_version;
    r.started_at = digest.started_at;
    r.problems = digest.problems;
    r.phases = digest.phases;
  }
  if (digest.node.empty()) digest.node = hostname;
  return true;
}

}  // namespace

double ReportDigest::total_ms() const {
  double t = 0;
  for (const auto& p : phases) t += p.ms;
  return t;
}

std::string result_contradiction(bool passed, const std::vector<FailedCheck>& failures, std::size_t problems) {
  bool should_pass = failures.empty() && problems == 0;
  if (passed == should_pass) return "";
  if (!passed) return "'result' is \"fail\" but no check counts against the node and planning found no problem";
  std::string why;
  for (std::size_t i = 0; i < failures.size() && i < 5; ++i)
    why += (i ? ", " : "") + failures[i].id.name() +
           (failures[i].status == CheckStatus::fail ? " (fail)" : " (unsupported, required)");
  if (failures.size() > 5) why += ", and " + std::to_string(failures.size() - 5) + " more";
  if (problems) why += std::string(why.empty() ? "" : "; ") + std::to_string(problems) +
                       (problems == 1 ? " planning problem" : " planning problems");
  return "'result' is \"pass\" but " + why + " count against the node";
}

std::string ReportDigest::contradiction() const { return result_contradiction(passed, failures, problems.size()); }

std::string LoadedReport::contradiction() const {
  std::vector<FailedCheck> failures;
  for (const auto& c : report.checks)
    if (c.failing()) failures.push_back({c.id, c.status});
  return result_contradiction(passed, failures, report.problems.size());
}

ReportReader::ReportReader() : parser_(std::make_unique<Parser>()) {}
ReportReader::~ReportReader() = default;

namespace {

// The walk over the first `size` bytes of `buffer`, which holds the padding simdjson reads
// past the end.
Walk walk(od::parser& parser, const std::string& buffer, std::size_t size, bool whole) {
  std::string_view text(buffer.data(), size);
  Walk w(text, buffer.data(), whole);
  od::document doc;
  if (error_code e = parser.iterate(buffer.data(), size, buffer.size()).get(doc)) {
    w.fault = ReportFault::malformed;
    w.error = grammar_error(text, e, 0);
  } else {
    w.report(doc);
  }
  return w;
}

}  // namespace

std::size_t ReportReader::take(std::string_view text) {
  std::string& b = parser_->buffer;
  b.assign(text);
  b.resize(text.size() + simdjson::SIMDJSON_PADDING);
  return text.size();
}

Outcome<ReportDigest> ReportReader::digest(std::string_view text) { return digest_taken(take(text)); }

Outcome<ReportDigest> ReportReader::digest_file(const std::string& path) {
  std::string& b = parser_->buffer;
  if (Status read = read_text_file(path, b); !read.ok()) {
    fault_ = ReportFault::unreadable;
    return Outcome<ReportDigest>::fail(read.error());
  }
  std::size_t size = b.size();
  b.resize(size + simdjson::SIMDJSON_PADDING);  // within the capacity of earlier reports, mostly
  return digest_taken(size);
}

Outcome<ReportDigest> ReportReader::digest_taken(std::size_t size) {
  Walk w = walk(parser_->parser, parser_->buffer, size, false);
  fault_ = w.fault;
  if (fault_ != ReportFault::none) return Outcome<ReportDigest>::fail(w.error);
  return std::move(w.digest);
}

Outcome<LoadedReport> ReportReader::whole(std::string_view text) {
  Walk w = walk(parser_->parser, parser_->buffer, take(text), true);
  fault_ = w.fault;
  if (fault_ != ReportFault::none) return Outcome<LoadedReport>::fail(w.error);
  return std::move(w.loaded);
}

Outcome<ReportDigest> read_digest(std::string_view text) {
  thread_local ReportReader reader;
  return reader.digest(text);
}

Outcome<LoadedReport> parse_report(std::string_view text) {
  thread_local ReportReader reader;
  return reader.whole(text);
}

}  // namespace railyard
