#include "kernel/root_files.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/atomic_file.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

bool within(const fs::path& inner, const fs::path& outer) {
  auto o = outer.begin(), i = inner.begin();
  for (; o != outer.end(); ++o, ++i)
    if (o->empty()) continue;  // a trailing separator
    else if (i == inner.end() || *i != *o) return false;
  return true;
}

}  // namespace

Outcome<std::string> resolve_under_root(const std::string& root, const std::string& path) {
  using Result = Outcome<std::string>;
  if (auto why = check_plain_path(path)) return Result::fail(EINVAL, *why + "; refusing to write it");
  if (root.empty() || root == "/") return path;
  fs::path target = fs::path(root) / fs::path(path).relative_path();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return Result::fail(ec.value(), target.parent_path().string() + ": " + ec.message());
  // A directory inside the root may be a symbolic link that leads out of it.
  fs::path real_root = fs::canonical(root, ec);
  if (ec) return Result::fail(ec.value(), root + ": " + ec.message());
  fs::path real_parent = fs::canonical(target.parent_path(), ec);
  if (ec) return Result::fail(ec.value(), target.parent_path().string() + ": " + ec.message());
  if (!within(real_parent, real_root))
    return Result::fail(EXDEV, target.string() + " resolves to " + (real_parent / target.filename()).string() +
                                   ", outside the root " + real_root.string() + "; refusing to write it");
  return target.string();
}

std::string write_root_file(const std::string& root, const std::string& path, const std::string& content, int mode) {
  auto target = resolve_under_root(root, path);
  if (!target.ok()) return target.error();
  Status s = write_file_atomically(*target, content, static_cast<unsigned>(mode));
  return s.ok() ? "" : s.error();
}

bool root_file_matches(const std::string& root, const std::string& path, const std::string& content, int mode) {
  auto target = resolve_under_root(root, path);
  if (!target.ok()) return false;
  std::error_code ec;
  auto status = fs::status(*target, ec);
  if (ec || !fs::is_regular_file(status) || (static_cast<int>(status.permissions()) & 07777) != mode) return false;
  std::ifstream in(*target, std::ios::binary);
  std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return in.good() || in.eof() ? have == content : false;
}

}  // namespace railyard
