#include "text.h"

#include <algorithm>
#include <charconv>
#include <ctime>

namespace railyard {

// Optimal string alignment: a swap of two neighbours ("nmae") is one edit, as typists make it.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    // A typo changes a few characters; a prefix ("pfc" for "pfc_priority") also counts.
    bool prefix = c.size() > word.size() && word.size() >= 3 && c.compare(0, word.size(), word) == 0;
    std::size_t limit = std::max<std::size_t>(2, std::min(word.size(), c.size()) / 3);
    if (d > limit && !prefix) continue;
    if (prefix) d = std::min(d, limit);
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = text.find(sep, start);
    out.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string trim(std::string_view text) {
  constexpr std::string_view space = " \t\r\n";
  std::size_t b = text.find_first_not_of(space);
  if (b == std::string_view::npos) return "";
  return std::string(text.substr(b, text.find_last_not_of(space) - b + 1));
}

std::string format_number(double value) {
  char buf[400];  // a double's fixed form: up to 309 digits
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

std::string rate_text(double gbps) {
  const bool mega = gbps < 1.0 && gbps > 0.0;
  char buf[400];  // a double's fixed form: up to 309 digits
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, mega ? gbps * 1000.0 : gbps, std::chars_format::fixed, mega ? 1 : 2);
  if (ec != std::errc{}) return "?";
  return std::string(buf, end) + (mega ? " Mb/s" : " Gb/s");
}

std::string hex(unsigned value, int digits) {
  const char* d = "0123456789abcdef";
  std::string out = "0x";
  for (int i = digits - 1; i >= 0; --i) out += d[(value >> (4 * i)) & 15];
  return out;
}

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::string file_stem(std::string_view path) {
  auto slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0) base = base.substr(0, dot);
  return std::string(base);
}

std::string dir_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string path_join(std::string_view base, std::string_view rel) {
  if (!rel.empty() && rel.front() == '/') return normalize_path(rel);
  if (base.empty()) return normalize_path(rel);
  std::string out(base);
  if (out.back() != '/') out += '/';
  out += rel;
  return normalize_path(out);
}

std::string normalize_path(std::string_view path) {
  bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    std::string_view part =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (!absolute) parts.emplace_back("..");
    } else if (!part.empty() && part != ".") {
      parts.emplace_back(part);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string out = absolute ? "/" : "";
  out += join(parts, "/");
  return out.empty() ? "." : out;
}

std::string first_control(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) {
      static const char digits[] = "0123456789abcdef";
      return std::string("\\x") + digits[c >> 4] + digits[c & 15];
    }
  return "";
}

std::optional<std::string> check_plain_path(std::string_view path) {
  const std::string shown = "'" + escape_control(path) + "'";
  if (path.empty()) return "an empty path; allowed: an absolute path like /etc/nccl.conf";
  if (std::string c = first_control(path); !c.empty()) return shown + " holds a control character (" + c + ")";
  if (path.front() != '/') return shown + " is not an absolute path";
  if (path.size() > 4095) return shown + " is longer than 4095 bytes (PATH_MAX)";
  if (path.size() > 1 && normalize_path(path) != path)
    return shown + " is not a plain path: no '.', '..' or empty components and no trailing '/' (it would be " +
           normalize_path(path) + ")";
  return std::nullopt;
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escaped = [&](unsigned char b) {
    static const char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[b >> 4];
    out += digits[b & 15];
  };
  for (std::size_t i = 0; i < text.size();) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting here, or 0.
    std::size_t n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n && i + n <= text.size()) {
      auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
      bool ok = true;
      for (std::size_t k = 1; k < n; ++k) ok &= (at(k) & 0xc0) == 0x80;
      if (ok && n == 3) ok = !(b == 0xe0 && at(1) < 0xa0) && !(b == 0xed && at(1) > 0x9f);  // overlong, surrogates
      if (ok && n == 4) ok = !(b == 0xf0 && at(1) < 0x90) && !(b == 0xf4 && at(1) > 0x8f);
      if (ok && n == 2 && b == 0xc2 && at(1) < 0xa0) ok = false;  // C1 controls, U+0080 to U+009F
      // Well-formed, but a character that moves or breaks what a terminal shows: the bidi
      // marks, embeddings, overrides and isolates (U+202E turns the rest of a line around)
      // and the line and paragraph separators. Written as \uXXXX.
      unsigned cp = n == 2   ? (b & 0x1fu) << 6 | (at(1) & 0x3fu)
                    : n == 3 ? (b & 0x0fu) << 12 | (at(1) & 0x3fu) << 6 | (at(2) & 0x3fu)
                             : 0;
      if (ok && (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
                 (cp >= 0x2066 && cp <= 0x2069))) {
        static const char digits[] = "0123456789abcdef";
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += digits[(cp >> shift) & 15];
        i += n;
        continue;
      }
      if (ok) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    escaped(b);
    ++i;
  }
  return out;
}

std::string format_rfc3339(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  char buf[32];
  if (!::gmtime_r(&t, &tm) || std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return "";
  return buf;
}

std::optional<std::int64_t> parse_rfc3339(std::string_view t) {
  auto digits = [&](std::size_t at, std::size_t n, int& out) {
    if (at + n > t.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      out = out * 10 + (t[i] - '0');
    }
    return true;
  };
  int y, mo, d, h, mi, sec;
  if (!digits(0, 4, y) || t.size() < 20 || t[4] != '-' || !digits(5, 2, mo) || t[7] != '-' || !digits(8, 2, d) ||
      (t[10] != 'T' && t[10] != 't') || !digits(11, 2, h) || t[13] != ':' || !digits(14, 2, mi) || t[16] != ':' ||
      !digits(17, 2, sec))
    return std::nullopt;
  std::size_t at = 19;
  if (t[at] == '.') {
    std::size_t start = ++at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
    if (at == start) return std::nullopt;
  }
  int offset = 0;
  if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) {
    ++at;
  } else if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
    int oh, om;
    if (!digits(at + 1, 2, oh) || at + 3 >= t.size() || t[at + 3] != ':' || !digits(at + 4, 2, om) || oh > 23 ||
        om > 59)
      return std::nullopt;
    offset = (t[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != t.size()) return std::nullopt;
  static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 ||
      sec > 60)
    return std::nullopt;
  // Days from 1970-01-01 to y-mo-d in the proleptic Gregorian calendar.
  int yy = mo <= 2 ? y - 1 : y;
  int era = (yy >= 0 ? yy : yy - 399) / 400;
  int yoe = yy - era * 400;
  int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  return days * 86400 + h * 3600 + mi * 60 + sec - offset;
}

std::string plural(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

}  // namespace railyard
