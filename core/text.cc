#include "text.h"

#include <algorithm>

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
    std::string_view part = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
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

}  // namespace railyard
