// NativeFiles: the kernel's files in place, ordinary ones under the root and whole.
#include "kernel/files_native.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "kernel/attribute_file.h"
#include "kernel/root_files.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// The kernel's files: never under --root, and written in place with one write.
bool kernel_path(const std::string& path) {
  for (const char* kernel : {"/proc/", "/sys/", "/dev/"})
    if (path.rfind(kernel, 0) == 0) return true;
  return false;
}

}  // namespace

std::string NativeFiles::where(const std::string& path) const {
  if (kernel_path(path)) return path;
  if (root_.empty() || root_ == "/") return path;
  return (fs::path(root_) / fs::path(path).relative_path()).string();
}

Outcome<std::string> NativeFiles::read_file(const std::string& path) { return read_attribute(where(path)); }

Status NativeFiles::write_file(const std::string& path, const std::string& value) {
  // An ordinary file (also with root /) whole or not at all, inside the root; a kernel
  // attribute in one write.
  if (kernel_path(path)) return write_attribute(path, value);
  auto target = resolve_under_root(root_, path);
  return target.ok() ? write_small_file(*target, value) : target.status();
}

Status NativeFiles::make_directory(const std::string& path) {
  std::string p = where(path);
  if (!kernel_path(path)) {
    auto target = resolve_under_root(root_, path);
    if (!target.ok()) return target.status();
  }
  if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return Status::from_errno(errno, "mkdir " + p);
  return success();
}

Outcome<std::vector<std::string>> NativeFiles::list_directory(const std::string& path) {
  return list_names(where(path));
}

Outcome<std::size_t> NativeFiles::read_block(const std::string& path, std::size_t bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Outcome<std::size_t>::from_errno(errno, "open " + path);
  std::vector<char> buf(bytes);
  ssize_t n = ::pread(fd, buf.data(), bytes, 0);
  int err = errno;
  ::close(fd);
  if (n < 0) return Outcome<std::size_t>::from_errno(err, "read " + path);
  return Outcome<std::size_t>(static_cast<std::size_t>(n));
}

}  // namespace railyard
