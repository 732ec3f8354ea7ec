#include "configfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "kernel/root_files.h"

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

Expected<std::string> Configfs::read(const std::string& path) const {
  std::string p = where(path);
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Expected<std::string>::fail(Status::from_errno(errno, "read " + p));
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
  Status s = n < 0 ? Status::from_errno(errno, "read " + p) : Status::success();
  ::close(fd);
  if (!s.ok()) return Expected<std::string>::fail(s);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  return Expected<std::string>::of(out);
}

Status Configfs::write(const std::string& path, const std::string& value) const {
  std::string p = where(path);
  if (!on_configfs(p)) {
    // As on configfs, the object (directory) must exist before its attributes are set.
    std::error_code ec;
    if (!fs::is_directory(fs::path(p).parent_path(), ec)) return Status::from_errno(ENOENT, "write " + p);
    std::string err = write_file_atomically("/", p, value + "\n", 0644);
    return err.empty() ? Status::success() : Status::error(EIO, err);
  }
  int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(errno, "write " + p);
  ssize_t n = ::write(fd, value.data(), value.size());
  Status s = n < 0 ? Status::from_errno(errno, "write " + p + " = " + value) : Status::success();
  ::close(fd);
  return s;
}

Status Configfs::make_directory(const std::string& path) const {
  std::string p = where(path);
  if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return Status::from_errno(errno, "mkdir " + p);
  return Status::success();
}

Status Configfs::make_link(const std::string& target, const std::string& link) const {
  // configfs resolves the target from the caller's view of the file system: always absolute.
  std::string t = where(target), l = where(link);
  if (::symlink(t.c_str(), l.c_str()) != 0 && errno != EEXIST)
    return Status::from_errno(errno, "ln -s " + t + " " + l);
  return Status::success();
}

bool Configfs::exists(const std::string& path) const {
  struct stat st {};
  return ::lstat(where(path).c_str(), &st) == 0;
}

Expected<std::vector<std::string>> Configfs::list(const std::string& path) const {
  std::string p = where(path);
  std::error_code ec;
  std::vector<std::string> out;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path().filename());
  if (ec) return Expected<std::vector<std::string>>::fail(Status::from_errno(ec.value(), "list " + p));
  std::sort(out.begin(), out.end());
  return Expected<std::vector<std::string>>::of(out);
}

}  // namespace railyard
