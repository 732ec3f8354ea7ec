#include "debian_version.h"

#include <cctype>
#include <string>

namespace railyard {

namespace {

struct Parts {
  unsigned long epoch = 0;
  std::string_view upstream, revision;
};

Parts split(std::string_view v) {
  Parts p;
  auto colon = v.find(':');
  if (colon != std::string_view::npos) {
    for (char c : v.substr(0, colon))
      if (std::isdigit(static_cast<unsigned char>(c))) p.epoch = p.epoch * 10 + static_cast<unsigned long>(c - '0');
    v.remove_prefix(colon + 1);
  }
  auto dash = v.rfind('-');
  p.upstream = dash == std::string_view::npos ? v : v.substr(0, dash);
  p.revision = dash == std::string_view::npos ? std::string_view() : v.substr(dash + 1);
  return p;
}

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// dpkg's order for the non-digit parts: `~` first (even before the end), then the end, then
// letters, then everything else.
int order(char c) {
  if (digit(c)) return 0;
  if (std::isalpha(static_cast<unsigned char>(c))) return c;
  if (c == '~') return -1;
  if (c) return c + 256;
  return 0;
}

// dpkg's verrevcmp: alternating runs of non-digits (by `order`) and digits (numerically).
int compare_part(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int first_diff = 0;
    while ((i < a.size() && !digit(a[i])) || (j < b.size() && !digit(b[j]))) {
      int ac = i < a.size() ? order(a[i]) : 0;
      int bc = j < b.size() ? order(b[j]) : 0;
      if (ac != bc) return ac - bc;
      ++i;
      ++j;
    }
    while (i < a.size() && a[i] == '0') ++i;
    while (j < b.size() && b[j] == '0') ++j;
    while (i < a.size() && digit(a[i]) && j < b.size() && digit(b[j])) {
      if (!first_diff) first_diff = a[i] - b[j];
      ++i;
      ++j;
    }
    if (i < a.size() && digit(a[i])) return 1;
    if (j < b.size() && digit(b[j])) return -1;
    if (first_diff) return first_diff;
  }
  return 0;
}

}  // namespace

int compare_debian_versions(std::string_view a, std::string_view b) {
  Parts pa = split(a), pb = split(b);
  if (pa.epoch != pb.epoch) return pa.epoch < pb.epoch ? -1 : 1;
  if (int c = compare_part(pa.upstream, pb.upstream)) return c;
  return compare_part(pa.revision, pb.revision);
}

}  // namespace railyard
