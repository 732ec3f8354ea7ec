#include "sysfs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "text.h"

namespace fs = std::filesystem;

namespace railyard::sysfs {

std::optional<std::string> read(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string read_or(const std::string& path, const std::string& fallback) { return read(path).value_or(fallback); }

int read_int_or(const std::string& path, int fallback) {
  auto s = read(path);
  if (!s || s->empty()) return fallback;
  int v = 0;
  auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || ptr != s->data() + s->size()) return fallback;
  return v;
}

std::optional<std::string> link_name(const std::string& path) {
  std::error_code ec;
  fs::path target = fs::read_symlink(path, ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

std::optional<std::string> resolve(const std::string& path) {
  std::error_code ec;
  fs::path target = fs::read_symlink(path, ec);
  if (ec) return std::nullopt;
  if (target.is_absolute()) return normalize_path(target.string());
  return normalize_path((fs::path(path).parent_path() / target).string());
}

std::vector<std::string> list(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace railyard::sysfs
