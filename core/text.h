// Small string helpers shared by the validators: suggestions, joining, globbing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate when it is close enough to be a likely typo.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& items, std::string_view sep);
// Every field between separators, empty ones included: split("a,,b", ',') → {"a", "", "b"}.
std::vector<std::string> split(std::string_view text, char sep);
// Without leading and trailing spaces, tabs and line ends.
std::string trim(std::string_view text);

// "1 node", "2 nodes": a count and its noun, plural with an s.
std::string plural(std::size_t n, std::string_view one);

// The shortest text that reads back as `value`: 25 → "25", 0.02 → "0.02".
std::string format_number(double value);

// A measured rate for people: "12.50 Gb/s" from 1 Gb/s up, "48.3 Mb/s" below, so that a
// lab rail or a link trained down to megabits never reads "0.00 Gb/s".
std::string rate_text(double gbps);

// `value` as 0x-prefixed lower-case hex of `digits` digits: hex(8, 2) → "0x08".
std::string hex(unsigned value, int digits);

// `text` safe to print on a terminal or in a log line: control characters (C0, DEL, C1)
// and bytes that are not UTF-8 become `\xNN`; the bidi controls (U+061C, U+200E/F,
// U+202A to U+202E, U+2066 to U+2069) and the line and paragraph separators (U+2028/9)
// become `\uXXXX`; other text, UTF-8 included, stays.
std::string escape_control(std::string_view text);
// The first control character (below 0x20, or 0x7f) in `text`, as "\xNN", or "" when none:
// nothing holding one may reach a line-oriented file, a path or a kernel name.
std::string first_control(std::string_view text);
// Why `path` is not a plain absolute path to a file or directory ("/etc/nccl.conf"): empty,
// relative, a "." or ".." or empty component, a trailing slash, a control character, or
// longer than PATH_MAX; nullopt when it is one.
std::optional<std::string> check_plain_path(std::string_view path);

// An RFC 3339 date-time ("2026-03-10T08:01:00Z", "2026-03-10T10:01:00.5+02:00") as
// seconds since the epoch, or nullopt when it is not one (fields checked, leap second
// allowed).
std::optional<std::int64_t> parse_rfc3339(std::string_view text);
// Seconds since the epoch as RFC 3339 UTC, to the second: "2026-03-10T08:01:00Z".
std::string format_rfc3339(std::int64_t seconds);

// Shell-style pattern with `*` and `?` (interface-name matching, e.g. "enp0s*").
bool glob_match(std::string_view pattern, std::string_view text);

// The file name without directories and without its last extension.
std::string file_stem(std::string_view path);
// The directory part of a path ("" for a bare name), without trailing slash.
std::string dir_name(std::string_view path);
// `rel` resolved against directory `base` (kept as is when absolute), normalised.
std::string path_join(std::string_view base, std::string_view rel);
// Lexically normalised: no "." parts, "a/.." folded, no doubled or trailing slashes.
std::string normalize_path(std::string_view path);

}  // namespace railyard
