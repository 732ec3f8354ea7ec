#include "configfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "kernel/attribute_file.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr long kConfigfsMagic = 0x62656570;  // CONFIGFS_MAGIC, linux/magic.h

bool on_configfs(const std::string& path) {
  struct statfs st {};
  return ::statfs(fs::path(path).parent_path().c_str(), &st) == 0 && st.f_type == kConfigfsMagic;
}

}  // namespace

std::string Configfs::where(const std::string& path) const {
  if (root_.empty() || root_ == "/") return path;
  return (fs::path(root_) / fs::path(path).relative_path()).string();
}

Outcome<std::string> Configfs::read(const std::string& path) const { return read_attribute(where(path)); }

Status Configfs::write(const std::string& path, const std::string& value) const {
  std::string p = where(path);
  if (on_configfs(p)) return write_attribute(p, value);
  // As on configfs, the object (directory) must exist before its attributes are set.
  std::error_code ec;
  if (!fs::is_directory(fs::path(p).parent_path(), ec)) return Status::from_errno(ENOENT, "write " + p);
  return write_small_file(p, value);
}

Status Configfs::make_directory(const std::string& path) const {
  std::string p = where(path);
  if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return Status::from_errno(errno, "mkdir " + p);
  return success();
}

Status Configfs::make_link(const std::string& target, const std::string& link) const {
  // configfs resolves the target from the caller's view of the file system: always absolute.
  std::string t = where(target), l = where(link);
  if (::symlink(t.c_str(), l.c_str()) != 0 && errno != EEXIST) return Status::from_errno(errno, "ln -s " + t + " " + l);
  return success();
}

bool Configfs::exists(const std::string& path) const {
  struct stat st {};
  return ::lstat(where(path).c_str(), &st) == 0;
}

Outcome<std::vector<std::string>> Configfs::list(const std::string& path) const { return list_names(where(path)); }

}  // namespace railyard
