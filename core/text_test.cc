#include <doctest/doctest.h>

#include "text.h"

using namespace railyard;

TEST_CASE("edit_distance counts single-character edits") {
  CHECK(edit_distance("mtu", "mtu") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("mtu", "mtus") == 1);
  CHECK(edit_distance("vlan", "vlam") == 1);
}

TEST_CASE("closest suggests a likely typo") {
  std::vector<std::string> keys{"mtu", "vlan", "soft_roce", "pfc_priority"};
  CHECK(closest("mut", keys) == "mtu");
  CHECK(closest("vlna", keys) == "vlan");
  CHECK(closest("soft-roce", keys) == "soft_roce");
}

TEST_CASE("closest takes a prefix of three or more characters as a suggestion") {
  std::vector<std::string> keys{"mtu", "pfc_priority"};
  CHECK(closest("pfc_p", keys) == "pfc_priority");
  CHECK(closest("pfc", keys) == "pfc_priority");
  CHECK_FALSE(closest("pf", {"pfc_priority"}).has_value());  // too short to count as a prefix
}

TEST_CASE("closest prefers the nearest candidate") { CHECK(closest("vlam", {"vlans", "vlan"}) == "vlan"); }

TEST_CASE("closest gives no suggestion when every candidate is far") {
  CHECK_FALSE(closest("bandwidth", {"mtu", "vlan", "trust"}).has_value());
  CHECK_FALSE(closest("x", {}).has_value());
}

TEST_CASE("join puts the separator between items only") {
  CHECK(join({}, ", ") == "");
  CHECK(join({"a"}, ", ") == "a");
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
}

TEST_CASE("glob_match: * matches any run, ? one character") {
  CHECK(glob_match("enp0s*", "enp0s3"));
  CHECK(glob_match("enp0s*", "enp0s"));
  CHECK_FALSE(glob_match("enp0s*", "eno1"));
  CHECK(glob_match("eth?", "eth0"));
  CHECK_FALSE(glob_match("eth?", "eth10"));
  CHECK_FALSE(glob_match("eth?", "eth"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("a*b*c", "axxbyyc"));
  CHECK_FALSE(glob_match("a*c", "abcd"));
  CHECK(glob_match("eno1", "eno1"));
  CHECK_FALSE(glob_match("eno1", "eno12"));
}

TEST_CASE("file_stem drops directories and the last extension") {
  CHECK(file_stem("recipes/base/nvidia-roce-noble.toml") == "nvidia-roce-noble");
  CHECK(file_stem("drivers/doca-ofed-2.10.0.toml") == "doca-ofed-2.10.0");
  CHECK(file_stem("r.toml") == "r");
  CHECK(file_stem("noext") == "noext");
  CHECK(file_stem("dir/.hidden") == ".hidden");
}

TEST_CASE("dir_name is the directory part without trailing slash") {
  CHECK(dir_name("recipes/base/x.toml") == "recipes/base");
  CHECK(dir_name("x.toml") == "");
  CHECK(dir_name("/x.toml") == "/");
}

TEST_CASE("path_join resolves a relative path against a directory") {
  CHECK(path_join("recipes", "base/x.toml") == "recipes/base/x.toml");
  CHECK(path_join("recipes/", "x.toml") == "recipes/x.toml");
  CHECK(path_join("", "x.toml") == "x.toml");
  CHECK(path_join("recipes", "/etc/x.toml") == "/etc/x.toml");
}

// A transposition is one edit, so "nmae" suggests "name", not "image".
TEST_CASE("closest prefers a transposition over two other edits") {
  CHECK(closest("nmae", {"image", "name"}) == "name");
}

TEST_CASE("split keeps empty fields; trim strips blanks at both ends") {
  CHECK(split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(split("", ',') == std::vector<std::string>{""});
  CHECK(split("x,", ',') == std::vector<std::string>{"x", ""});
  CHECK(trim("  a b\t\n") == "a b");
  CHECK(trim(" \n ") == "");
}

TEST_CASE("escape_control: control characters and broken UTF-8 escaped, UTF-8 text kept") {
  CHECK(escape_control("plain text 1.2/3") == "plain text 1.2/3");
  CHECK(escape_control("a\r\nb") == "a\\x0d\\x0ab");
  CHECK(escape_control("\x1b[31mred") == "\\x1b[31mred");
  CHECK(escape_control("del\x7f") == "del\\x7f");
  CHECK(escape_control("gpu → nic, é") == "gpu → nic, é");
  CHECK(escape_control("c1 \xc2\x9b") == "c1 \\xc2\\x9b");     // CSI as a C1 control
  CHECK(escape_control("bad \xff\xc3") == "bad \\xff\\xc3");   // not UTF-8; cut short
  CHECK(escape_control("\xe0\x80\x80") == "\\xe0\\x80\\x80");  // overlong
  CHECK(escape_control("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(escape_control("🚀") == "🚀");
}

TEST_CASE("escape_control: bidi controls and line separators, which rearrange a terminal's line, escaped") {
  CHECK(escape_control("leaf\u202egnp.exe") == "leaf\\u202egnp.exe");  // right-to-left override
  CHECK(escape_control("a\u2028b\u2029c") == "a\\u2028b\\u2029c");     // line, paragraph separator
  CHECK(escape_control("\u2066x\u2069\u200e\u200f\u061c") == "\\u2066x\\u2069\\u200e\\u200f\\u061c");
  CHECK(escape_control("\u2027\u2030\u2065 \u2070") == "\u2027\u2030\u2065 \u2070");  // their neighbours stay
}

TEST_CASE("format_rfc3339: seconds since the epoch as UTC, read back by parse_rfc3339") {
  CHECK(format_rfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(format_rfc3339(1773129660) == "2026-03-10T08:01:00Z");
  CHECK(parse_rfc3339(format_rfc3339(1796118352)) == 1796118352);
}

TEST_CASE("parse_rfc3339: date-times as seconds since the epoch; anything else refused") {
  CHECK(parse_rfc3339("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_rfc3339("2026-03-10T08:01:00Z") == 1773129660);
  CHECK(parse_rfc3339("2026-03-10T10:01:00.25+02:00") == 1773129660);
  CHECK(parse_rfc3339("2026-03-10t08:01:00z") == 1773129660);
  CHECK(parse_rfc3339("2024-02-29T00:00:00Z").has_value());
  CHECK(parse_rfc3339("2016-12-31T23:59:60Z").has_value());  // a leap second
  for (const char* bad : {"", "not a date", "2026-03-10", "2026-03-10T08:01:00", "2026-03-10 08:01:00Z",
                          "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2026-03-10T24:00:00Z",
                          "2026-03-10T08:01:00.Z", "2026-03-10T08:01:00+2:00", "2026-03-10T08:01:00Zjunk", ".hidden"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_rfc3339(bad).has_value());
  }
}

TEST_CASE("rate_text: gigabits from 1 Gb/s up, megabits below, never 0.00 Gb/s for a slow link") {
  CHECK(rate_text(97.25) == "97.25 Gb/s");
  CHECK(rate_text(1.0) == "1.00 Gb/s");
  CHECK(rate_text(0.0483) == "48.3 Mb/s");
  CHECK(rate_text(0.0009) == "0.9 Mb/s");
  CHECK(rate_text(0.0) == "0.00 Gb/s");
}
