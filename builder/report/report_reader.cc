#include "report/report_reader.h"

#include <simdjson.h>

#include <limits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "report/report_source.h"
#include "text.h"

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

// The JSON values one report may hold: the largest real report (an HGX node's) holds about
// 6,000; the bound keeps a forged one's model, and the memory of whoever reads it, small
// (a report of 8 MiB of empty objects would otherwise be 2.8 million values).
constexpr std::size_t kMaxValues = 250000;

std::string too_many_values() {
  return "more than " + std::to_string(kMaxValues) + " JSON values (a report holds a few thousand)";
}

// JSON text read through nlohmann::json's SAX interface: linear in the text whatever its
// shape, and no DOM unless one is asked for. It is the one place a report's JSON grammar is
// checked in words: a value kept whole (the plan, changes, inventory) is checked, and built
// when `out` is given; text simdjson would not read is parsed again here, without a DOM, to
// say where and what is wrong. Nesting past `max_depth` and a key twice in one object stop
// the parse; so does a number no double holds (nlohmann's out_of_range 406), which is an
// error at its place like any other, never an exception.
class SaxValue {
 public:
  using number_integer_t = ordered_json::number_integer_t;
  using number_unsigned_t = ordered_json::number_unsigned_t;
  using number_float_t = ordered_json::number_float_t;
  using string_t = ordered_json::string_t;
  using binary_t = ordered_json::binary_t;

  // `keys`: refuse a key twice in one object (a report never writes one; readers disagree
  // on which copy wins).
  SaxValue(std::size_t max_depth, bool keys, ordered_json* out, std::size_t* values = nullptr)
      : max_depth_(max_depth), keys_(keys), out_(out), values_(values) {}

  bool null() { return put(nullptr); }
  bool boolean(bool b) { return put(b); }
  bool number_integer(number_integer_t v) { return put(v); }
  bool number_unsigned(number_unsigned_t v) { return put(v); }
  bool number_float(number_float_t v, const string_t&) { return put(v); }
  bool string(string_t& s) { return put(std::move(s)); }
  bool binary(binary_t&) { return put(nullptr); }  // never in JSON text
  bool start_object(std::size_t) { return open(ordered_json::value_t::object); }
  bool start_array(std::size_t) { return open(ordered_json::value_t::array); }
  bool end_object() { return close(true); }
  bool end_array() { return close(false); }
  bool key(string_t& k) {
    if (keys_ && !seen_.back().insert(k).second) {
      error = "the key '" + escape_control(k) + "' appears twice in one object";
      return false;
    }
    if (out_) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string& token, const ordered_json::exception& e) {
    grammar = true;
    // The byte the grammar stopped at; a number too large is named where it starts.
    offset = e.id == 406 ? position - std::min(position, token.size()) : position == 0 ? 0 : position - 1;
    error = e.id == 406 ? "number out of range (no double holds it)" : words(e.what());
    return false;
  }

  // Why the parse stopped ("" when it did not), and at which byte of its text when the
  // grammar stopped it (else where the walk was).
  std::string error;
  std::size_t offset = 0;
  bool grammar = false;  // the text is not JSON (else: too deep, or a key twice)

 private:
  // nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 9: syntax
  // error while parsing value - invalid literal; last read: 'tru}'; expected ...": the words
  // after the dash, without the text last read (it may be anything, invalid UTF-8 included).
  static std::string words(std::string what) {
    if (std::size_t dash = what.find(" - "); dash != std::string::npos) what = what.substr(dash + 3);
    else if (std::size_t colon = what.rfind(": "); colon != std::string::npos) what = what.substr(colon + 2);
    if (std::size_t last = what.find("; last read: '"); last != std::string::npos) {
      std::size_t expected = what.rfind("'; expected ");
      what = what.substr(0, last) + (expected != std::string::npos && expected > last ? what.substr(expected + 1) : "");
    }
    return escape_control(what);
  }
  template <class V>
  bool put(V&& v) {
    if (!counted()) return false;
    if (!out_) return true;
    return place(ordered_json(std::forward<V>(v))) != nullptr;
  }
  // Appends to the open array or object: an ordered_json object's own insert searches its
  // keys, which a value of 100,000 keys would make quadratic; the key sets above keep the
  // keys unique instead.
  ordered_json* place(ordered_json&& v) {
    if (stack_.empty()) {
      *out_ = std::move(v);
      return out_;
    }
    ordered_json& parent = *stack_.back();
    if (parent.is_array()) {
      auto& a = parent.get_ref<ordered_json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    auto& o = parent.get_ref<ordered_json::object_t&>();
    o.ordered_json::object_t::Container::emplace_back(std::move(key_), std::move(v));
    return &o.back().second;
  }
  bool open(ordered_json::value_t type) {
    if (!counted()) return false;
    if (++depth_ > max_depth_) {
      error = "nesting deeper than " + std::to_string(max_depth_) + " levels";
      return false;
    }
    if (keys_ && type == ordered_json::value_t::object) seen_.emplace_back();
    if (out_) stack_.push_back(place(ordered_json(type)));
    return true;
  }
  bool close(bool object) {
    --depth_;
    if (keys_ && object) seen_.pop_back();
    if (out_) stack_.pop_back();
    return true;
  }

  std::size_t max_depth_;
  bool keys_;
  ordered_json* out_;
  // One more value against the report's budget (kMaxValues), when it keeps one.
  bool counted() {
    if (!values_ || ++*values_ <= kMaxValues) return true;
    error = too_many_values();
    return false;
  }

  std::size_t* values_;
  std::size_t depth_ = 0;
  std::vector<ordered_json*> stack_;
  std::vector<std::unordered_set<std::string>> seen_;
  std::string key_;
};

// What is wrong with text that simdjson would not read: the SAX parse above says where and
// what, in words ("line 2, column 1: unexpected end of input; ..."). Used only on the way
// out, so a fleet of good reports never pays for it; linear, and without a DOM.
std::string grammar_error(std::string_view text, error_code code, std::size_t at) {
  SaxValue check(std::numeric_limits<std::size_t>::max(), false, nullptr);
  if (!ordered_json::sax_parse(text, &check)) return where(text, check.offset) + ": " + check.error;
  // JSON by the grammar, but past what simdjson reads (nesting deeper than it allows).
  return where(text, at) + ": " + simdjson::error_message(code);
}

// A phase's time: from 0 to a week (a first boot's phase takes seconds; the bound keeps a
// forged number out of every sum and duration the views print).
constexpr double kMaxPhaseMs = 7 * 86400e3;
constexpr const char* kPhaseMsAllowed = "0 to 604800000 (a week, in milliseconds)";

// One pass over one report. `whole` decides between the digest (the summary's fields) and
// the whole report (every field, into the model).
class Walk {
 public:
  static constexpr int kMaxDepth = 64;
  // digest: the summary's fields, the rest stepped over; checked: every field into the
  // model and the kept values (plan, changes, ...) checked but not built, which is what the
  // receiver needs to store a report; whole: everything, the kept values built.
  enum class Mode { digest, checked, whole };

  Walk(std::string_view text, const char* base, Mode mode)
      : text_(text), base_(base), whole_(mode != Mode::digest), build_(mode == Mode::whole) {}

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
    return string(
        v, [subject] { return subject; }, out);
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
      if (++values_ > kMaxValues) return refuse(at(x), too_many_values());
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
      if (++values_ > kMaxValues) return refuse(at(x.value()), too_many_values());
      if (!member(key, x.value())) return false;
    }
    return true;
  }
  bool strings(od::value& v, const char* subject, std::vector<std::string>& out);
  // A number from `low` to `high`: every number a view prints or casts is range-checked
  // here (a double outside an int is undefined behaviour to cast).
  bool number(od::value& v, const char* subject, double low, double high, const char* allowed, double& out) {
    const char* value_at = at(v);
    if (!is(v, od::json_type::number, [&] { return std::string(subject) + " must be a number"; })) return false;
    if (error_code e = v.get_double().get(out)) return malformed(e, value_at);
    if (!(out >= low && out <= high))
      return refuse(value_at, std::string(subject) + " is out of range; allowed: " + allowed);
    return true;
  }
  // A value kept as JSON (the plan, changes, inventory), or only checked (an unknown key):
  // nlohmann::json reads its text whole. A digest steps over it.
  bool json(od::value& v, ordered_json* out);
  bool host(od::value& v);
  bool checks(od::value& v);
  bool check(od::value& v, int index);
  bool phases(od::value& v);
  bool lldp(od::value& v);

  std::string_view text_;
  const char* base_;
  bool whole_;              // every field into the model
  bool build_;              // the kept values built, not only checked
  std::size_t values_ = 0;  // read so far, against kMaxValues
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
  // Linear in the text, a key twice in one object refused, and no DOM unless it is kept.
  ordered_json parsed;
  SaxValue sax(kMaxDepth, true, build_ && out ? &parsed : nullptr, &values_);
  if (!ordered_json::sax_parse(raw, &sax)) {
    if (!sax.grammar) return refuse(start, sax.error);
    fault = ReportFault::malformed;
    error = where(text_, static_cast<std::size_t>(start - base_) + sax.offset) + ": " + sax.error;
    return false;
  }
  if (build_ && out) *out = std::move(parsed);
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
  return each_element(
      v, [] { return std::string("'checks' must be an array"); },
      [&](od::value& c) {
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
    if (key == "name")
      return has_name = string(
                 value, [&] { return name_of(".name"); }, name);
    if (key == "status") {
      status_at = at(value);
      return has_status = string(
                 value, [&] { return name_of(".status"); }, status);
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
  if (!each_member(
          v, [&] { return name_of(" must be an object"); }, member))
    return false;
  if (!has_name || !has_status) return refuse(object_at, name_of(has_name ? " has no 'status'" : " has no 'name'"));
  auto st = parse_check_status(std::string(status));
  if (!st)
    return refuse(status_at, name_of(".status: '") + escape_control(status) +
                                 "' is not one of pass, fail, skip, warn, unsupported");
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
  return each_element(
      v, [] { return std::string("'phases' must be an array"); },
      [&](od::value& p) {
        PhaseTiming& t = digest.phases.emplace_back();
        return each_member(
            p, [] { return std::string("phases[] must be objects {phase, ms}"); },
            [&](std::string_view key, od::value& value) {
              return key == "phase" ? string(value, "'phases[].phase'", t.phase)
                     : key == "ms"  ? number(value, "phases[].ms", 0, kMaxPhaseMs, kPhaseMsAllowed, t.ms)
                                    : json(value, nullptr);
            });
      });
}

// What each rail reaches, for the fabric's topology: lldp[].rail and its neighbour's
// system name (the chassis ID where it sends none) and port ID; the rest stepped over.
bool Walk::lldp(od::value& v) {
  od::json_type t;
  if (error_code e = v.type().get(t)) return malformed(e, at(v));
  if (t == od::json_type::null) return true;  // a recipe without LLDP checks
  return each_element(
      v, [] { return std::string("'lldp' must be an array"); },
      [&](od::value& e) {
        double rail = -1;
        std::string system, chassis, port;
        bool heard = false;
        bool ok = each_member(
            e, [] { return std::string("lldp[] must be objects"); },
            [&](std::string_view key, od::value& value) {
              if (key == "rail") return number(value, "lldp[].rail", 0, kMaxDigestRails - 1, "a rail 0-63", rail);
              if (key != "neighbor") return json(value, nullptr);
              od::json_type t;
              if (error_code err = value.type().get(t)) return malformed(err, at(value));
              if (t == od::json_type::null) return true;
              heard = true;
              return each_member(
                  value, [] { return std::string("lldp[].neighbor must be an object or null"); },
                  [&](std::string_view k, od::value& x) {
                    if (k == "system_name") return string(x, "'lldp[].neighbor.system_name'", system);
                    if (k == "chassis_id") return string(x, "'lldp[].neighbor.chassis_id'", chassis);
                    if (k == "port_id") return string(x, "'lldp[].neighbor.port_id'", port);
                    return json(x, nullptr);
                  });
            });
        if (!ok || rail < 0) return ok;
        auto r = static_cast<std::size_t>(rail);
        if (digest.rails.size() <= r) digest.rails.resize(r + 1);
        if (heard) digest.rails[r] = RailNeighbor{system.empty() ? chassis : system, port};
        return true;
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
  // Each key once: two 'checks' arrays would be read as one here and as the last elsewhere.
  std::unordered_set<std::string> keys;
  for (auto f : top) {
    od::field field;
    std::string_view key;
    if (error_code e = std::move(f).get(field); e || (e = field.unescaped_key().get(key))) return malformed(e);
    od::value& value = field.value();
    if (!keys.emplace(key).second)
      return refuse(at(value), "the key '" + escape_control(key) + "' appears twice in the report");
    bool ok = true;
    if (key == "schema") {
      const char* value_at = at(value);
      double v = 0;
      if (!number(value, "'schema'", 1, 1e6, "a positive integer", v)) return false;  // in range: castable
      if (v != static_cast<int>(v)) return refuse(value_at, "'schema' must be a positive integer");
      digest.schema = static_cast<int>(v);
      has_schema = true;
    } else if (key == "node") ok = has_node = string(value, "'node'", digest.node);
    else if (key == "recipe") ok = string(value, "'recipe'", digest.recipe);
    else if (key == "result") {
      const char* value_at = at(value);
      ok = has_result = string(value, "'result'", result);
      if (ok && result != "pass" && result != "fail")
        return refuse(value_at, "'result' must be \"pass\" or \"fail\", not \"" + escape_control(result) + "\"");
    } else if (key == "started_at") ok = string(value, "'started_at'", digest.started_at);
    else if (key == "railyard_version") ok = string(value, "'railyard_version'", digest.railyard_version);
    else if (key == "host") ok = host(value);
    else if (key == "problems") ok = strings(value, "'problems'", digest.problems);
    else if (key == "checks") ok = has_checks = checks(value);
    else if (key == "phases") ok = phases(value);
    else if (key == "changes") ok = json(value, &r.changes);
    else if (key == "plan") ok = json(value, &r.plan);
    else if (key == "inventory") ok = json(value, &r.inventory);
    else if (key == "lldp") ok = whole_ ? json(value, &r.lldp) : lldp(value);
    else if (key == "peers") ok = json(value, &r.peers);
    else if (key == "modules") ok = json(value, &r.modules);
    else if (key == "join") ok = json(value, &r.join);
    else ok = json(value, nullptr);
    if (!ok) return false;
  }
  // Nothing but white space after the report.
  const char* rest = nullptr;
  if (!doc.current_location().get(rest)) return malformed(simdjson::TRAILING_CONTENT, rest);
  for (auto [has, name] :
       {std::pair{has_schema, "schema"}, {has_node, "node"}, {has_result, "result"}, {has_checks, "checks"}})
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
  if (problems)
    why += std::string(why.empty() ? "" : "; ") + std::to_string(problems) +
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
Walk walk(od::parser& parser, const std::string& buffer, std::size_t size, Walk::Mode mode) {
  std::string_view text(buffer.data(), size);
  Walk w(text, buffer.data(), mode);
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
  Walk w = walk(parser_->parser, parser_->buffer, size, Walk::Mode::digest);
  fault_ = w.fault;
  if (fault_ != ReportFault::none) return Outcome<ReportDigest>::fail(w.error);
  return std::move(w.digest);
}

Outcome<LoadedReport> ReportReader::whole(std::string_view text) {
  Walk w = walk(parser_->parser, parser_->buffer, take(text), Walk::Mode::whole);
  fault_ = w.fault;
  if (fault_ != ReportFault::none) return Outcome<LoadedReport>::fail(w.error);
  return std::move(w.loaded);
}

Outcome<LoadedReport> ReportReader::checked(std::string_view text) {
  Walk w = walk(parser_->parser, parser_->buffer, take(text), Walk::Mode::checked);
  fault_ = w.fault;
  if (fault_ != ReportFault::none) return Outcome<LoadedReport>::fail(w.error);
  return std::move(w.loaded);
}

std::optional<std::string> ReportReader::node_name(std::string_view text) {
  // The top level's members in turn, each value skipped unread but for 'node' and 'host'
  // (simdjson skips a value by its brackets and strings: linear, nothing built).
  std::size_t size = take(text);
  od::document doc;
  od::object top;
  if (parser_->parser.iterate(parser_->buffer.data(), size, parser_->buffer.size()).get(doc) ||
      doc.get_object().get(top))
    return std::nullopt;
  std::optional<std::string> node, hostname;
  for (auto f : top) {
    od::field field;
    std::string_view key, value;
    if (std::move(f).get(field) || field.unescaped_key().get(key)) return std::nullopt;
    if (key == "node") {
      if (field.value().get_string().get(value)) return std::nullopt;
      node.emplace(value);
    } else if (key == "host") {
      od::object host;
      if (field.value().get_object().get(host)) return std::nullopt;
      for (auto h : host) {
        od::field hf;
        if (std::move(h).get(hf) || hf.unescaped_key().get(key)) return std::nullopt;
        if (key != "hostname") continue;
        if (hf.value().get_string().get(value)) return std::nullopt;
        hostname.emplace(value);
      }
    }
  }
  if (node && !node->empty()) return node;
  return hostname;
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
