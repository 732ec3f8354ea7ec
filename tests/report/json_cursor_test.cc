// The lean JSON reader (builder/report/json_cursor.cc): decoding what is asked for,
// stepping over the rest, and refusing what is not JSON with a line and column.
#include <doctest/doctest.h>

#include <string>

#include "builder/temp_dir.h"
#include "report/json_cursor.h"

using namespace railyard;

namespace {

// The error for `text` skipped as one value; "" when it is valid JSON.
std::string skip_error(const std::string& text) {
  JsonCursor c(text);
  c.skip_value();
  c.finish();
  return c.error();
}

}  // namespace

TEST_CASE("report json_cursor: reads the keys asked for and skips the rest") {
  JsonCursor c(R"({"skip": {"a": [1, 2.5e3, -0.1, true, false, null, "x\"y"], "b": {}}, "name": "n1", "n": 42, "ok": true})");
  std::string name;
  double n = 0;
  bool ok = false;
  REQUIRE(c.begin_object());
  for (std::string_view key; c.next_key(key);) {
    if (key == "name") CHECK(c.read_string(name));
    else if (key == "n") CHECK(c.read_number(n));
    else if (key == "ok") CHECK(c.read_bool(ok));
    else CHECK(c.skip_value());
  }
  CHECK(c.finish());
  CHECK(c.error() == "");
  CHECK(name == "n1");
  CHECK(n == 42);
  CHECK(ok);
}

TEST_CASE("report json_cursor: keys with escapes are decoded; plain keys are views of the text") {
  JsonCursor c(R"({"pl\u0061in": 1, "a\"b": 2, "plain": 3})");
  std::vector<std::string> keys;
  REQUIRE(c.begin_object());
  for (std::string_view key; c.next_key(key);) {
    keys.emplace_back(key);
    c.skip_value();
  }
  CHECK(c.finish());
  CHECK(keys == std::vector<std::string>{"plain", "a\"b", "plain"});
}

TEST_CASE("report json_cursor: skip_balanced steps over containers, checking strings and brackets") {
  auto balanced = [](const std::string& text) {
    JsonCursor c(text);
    c.skip_balanced();
    c.finish();
    return c.error();
  };
  std::string big = R"({"plan": {"rails": [{"a": "x\"]}", "b": [1, 2, {"c": null}]}], "s": "{[ not brackets ]}"}})";
  CHECK(balanced(big) == "");
  CHECK(balanced(R"("a string")") == "");
  CHECK(balanced("42") == "");
  CHECK(balanced(R"({"a": [1, 2})") == "line 1, column 12: '}' closes a '['");
  CHECK(balanced(R"({"a": [1, 2]})") == "");
  CHECK(balanced(R"({"a": "unterminated})") == "line 1, column 21: unterminated string");
  CHECK(balanced("{\"a\": \"tab\there\"}") == "line 1, column 11: control character in a string (must be escaped)");
  CHECK(balanced(R"({"a": [1, 2)") == "line 1, column 12: unexpected end of input inside an object or array");
  CHECK(balanced(std::string(300, '[')).find("nested deeper than 256 levels") != std::string::npos);
  // What it does not check: the grammar between strings and brackets.
  CHECK(balanced(R"({"a" 1 2 ,, "b"})") == "");
  // Cut anywhere, a document is refused.
  for (std::size_t n = 0; n < big.size(); ++n) {
    CAPTURE(n);
    CHECK(balanced(big.substr(0, n)) != "");
  }
}

TEST_CASE("json_cursor: skip_balanced over a whole report, 64 bytes at a time, finds what the byte-wise scan finds") {
  const std::string report =
      test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/report/golden/hgx-pfc-link.json");
  auto balanced = [](const std::string& text) {
    JsonCursor c(text);
    c.skip_balanced();
    c.finish();
    return c.error();
  };
  REQUIRE(report.size() > 50000);
  CHECK(balanced(report) == "");
  // Escapes, and strings across block boundaries, anywhere.
  for (std::size_t at = report.find("\"detail\": \"", 0); at != std::string::npos && at < 20000;
       at = report.find("\"detail\": \"", at + 1)) {
    std::string t = report;
    t.insert(at + 11, "a \\\"quoted\\\" \\\\ back\\u00e9slash ");
    CAPTURE(at);
    CHECK(balanced(t) == "");
  }
  std::size_t cuts = 0, controls = 0, swaps = 0;
  for (std::size_t n = 1; n < report.size() - 2; n += 61, ++cuts) {
    CAPTURE(n);
    CHECK(balanced(report.substr(0, n)) != "");
  }
  // A raw control character inside a string, wherever the string sits in a block.
  for (std::size_t at = report.find(": \""); at != std::string::npos; at = report.find(": \"", at + 997), ++controls) {
    std::string t = report;
    t.insert(at + 3, 1, '\x01');
    CAPTURE(at);
    CHECK(balanced(t).find("control character in a string") != std::string::npos);
  }
  // A closing bracket of the wrong kind.
  for (std::size_t at = report.find(']'); at != std::string::npos; at = report.find(']', at + 997), ++swaps) {
    std::string t = report;
    t[at] = '}';
    CAPTURE(at);
    CHECK(balanced(t).find("closes a '['") != std::string::npos);
  }
  // One string over several blocks, with an escape or a control character late in it.
  for (std::size_t len : {std::size_t{100}, std::size_t{200}, std::size_t{333}}) {
    CAPTURE(len);
    std::string head = R"({"plan": [{"x": ")" + std::string(len, 'a');
    CHECK(balanced(head + R"(\"b]"}], "y": 1})") == "");
    CHECK(balanced(head + "\x02\"}], \"y\": 1}").find("control character") != std::string::npos);
    CHECK(balanced(head + R"("}}, "y": 1})").find("closes a '['") != std::string::npos);
    CHECK(balanced(head + R"(")").find("unexpected end of input") != std::string::npos);
  }
  CHECK(cuts > 1000);
  CHECK(controls > 50);
  CHECK(swaps > 20);
}

TEST_CASE("report json_cursor: arrays, empty containers and peek") {
  JsonCursor c(R"([ [], {}, "s", 1, null ])");
  REQUIRE(c.begin_array());
  std::vector<JsonCursor::Kind> kinds;
  while (c.next_element()) {
    kinds.push_back(c.peek());
    c.skip_value();
  }
  CHECK(c.finish());
  using K = JsonCursor::Kind;
  CHECK(kinds == std::vector<K>{K::array, K::object, K::string, K::number, K::null});
}

TEST_CASE("report json_cursor: string escapes decode to UTF-8, surrogate pairs included") {
  JsonCursor c(R"("a\"b\\c\/d\b\f\n\r\t \u00e9 \u2192 \ud83d\ude80 raw → é")");
  std::string s;
  REQUIRE(c.read_string(s));
  CHECK(s == "a\"b\\c/d\b\f\n\r\t é → 🚀 raw → é");
}

TEST_CASE("report json_cursor: numbers in every JSON form; non-JSON numbers refused") {
  for (auto [text, want] : {std::pair{"0", 0.0}, {"-0", 0.0}, {"12", 12.0}, {"-3.25", -3.25}, {"1e3", 1000.0},
                            {"2.5E-2", 0.025}, {"1234.5", 1234.5}}) {
    CAPTURE(text);
    JsonCursor c(text);
    double v = -1;
    CHECK(c.read_number(v));
    CHECK(c.finish());
    CHECK(v == doctest::Approx(want));
  }
  for (const char* bad : {"01", "1.", ".5", "+1", "1e", "-", "0x10", "NaN", "Infinity"}) {
    CAPTURE(bad);
    CHECK(skip_error(bad) != "");
  }
}

TEST_CASE("report json_cursor: malformed JSON is an error with line and column, skipped parts included") {
  CHECK(skip_error(R"({"a": [1, 2,]})") == "line 1, column 13: expected a value");
  CHECK(skip_error("{\n  \"a\": 1,\n  \"b\" 2\n}") == "line 3, column 7: expected ':' after the key");
  CHECK(skip_error(R"({"a": 1,})") == "line 1, column 9: expected a key (a string)");
  CHECK(skip_error(R"({"a": tru})") == "line 1, column 7: invalid literal (expected true, false or null)");
  CHECK(skip_error(R"(["a" "b"])") == "line 1, column 6: expected ',' or ']'");
  CHECK(skip_error(R"({"a": "x)") == "line 1, column 9: unterminated string");
  CHECK(skip_error("\"tab\there\"") == "line 1, column 5: control character in a string (must be escaped)");
  CHECK(skip_error(R"("\x")") == "line 1, column 2: invalid escape '\\x'");
  CHECK(skip_error(R"("\u12G4")") == "line 1, column 4: \\u must be followed by four hex digits");
  CHECK(skip_error(R"("\ud800x")").find("low surrogate") != std::string::npos);
  CHECK(skip_error("{} {}") == "line 1, column 4: unexpected text after the JSON value");
  CHECK(skip_error("") == "line 1, column 1: unexpected end of input, expected a value");
}

TEST_CASE("report json_cursor: a truncated document is an error wherever it is cut") {
  std::string doc = R"({"schema": 1, "checks": [{"name": "rail.0.mtu", "status": "pass"}], "plan": {"rails": [1, 2]}})";
  CHECK(skip_error(doc) == "");
  for (std::size_t n = 0; n < doc.size(); ++n) {
    CAPTURE(n);
    CHECK(skip_error(doc.substr(0, n)) != "");
  }
}

TEST_CASE("report json_cursor: nesting deeper than 256 levels is refused, not a stack overflow") {
  std::string deep(100000, '[');
  CHECK(skip_error(deep).find("nested deeper than 256 levels") != std::string::npos);
  std::string ok = std::string(200, '[') + std::string(200, ']');
  CHECK(skip_error(ok) == "");
}

TEST_CASE("report json_cursor: reading the wrong kind fails and stays failed") {
  JsonCursor c(R"({"a": 1})");
  REQUIRE(c.begin_object());
  std::string_view key;
  std::string s;
  REQUIRE(c.next_key(key));
  CHECK_FALSE(c.read_string(s));
  CHECK(c.error() == "line 1, column 7: expected a string");
  CHECK_FALSE(c.skip_value());
  CHECK_FALSE(c.next_key(key));
  CHECK_FALSE(c.finish());
}
