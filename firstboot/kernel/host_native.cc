#include "kernel/host_native.h"

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

std::string NativeHost::where(const std::string& path) const {
  if (kernel_path(path)) return path;
  if (root_.empty() || root_ == "/") return path;
  return (fs::path(root_) / fs::path(path).relative_path()).string();
}

Outcome<std::string> NativeHost::read_file(const std::string& path) { return read_attribute(where(path)); }

Status NativeHost::write_file(const std::string& path, const std::string& value) {
  // An ordinary file (also with root /) whole or not at all, inside the root; a kernel
  // attribute in one write.
  if (kernel_path(path)) return write_attribute(path, value);
  auto target = resolve_under_root(root_, path);
  return target.ok() ? write_small_file(*target, value) : target.status();
}

Status NativeHost::make_directory(const std::string& path) {
  std::string p = where(path);
  if (!kernel_path(path)) {
    auto target = resolve_under_root(root_, path);
    if (!target.ok()) return target.status();
  }
  if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return Status::from_errno(errno, "mkdir " + p);
  return success();
}

Outcome<std::vector<std::string>> NativeHost::list_directory(const std::string& path) {
  return list_names(where(path));
}

Outcome<std::size_t> NativeHost::read_block(const std::string& path, std::size_t bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Outcome<std::size_t>::from_errno(errno, "open " + path);
  std::vector<char> buf(bytes);
  ssize_t n = ::pread(fd, buf.data(), bytes, 0);
  int err = errno;
  ::close(fd);
  if (n < 0) return Outcome<std::size_t>::from_errno(err, "read " + path);
  return Outcome<std::size_t>(static_cast<std::size_t>(n));
}

Outcome<std::vector<std::uint8_t>> NativeHost::pci_config(const std::string& bdf) {
  std::string p = "/sys/bus/pci/devices/" + bdf + "/config";
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Outcome<std::vector<std::uint8_t>>::from_errno(errno, "read " + p);
  std::vector<std::uint8_t> out(4096);
  ssize_t n = ::pread(fd, out.data(), out.size(), 0);
  int err = errno;
  ::close(fd);
  if (n < 0) return Outcome<std::vector<std::uint8_t>>::from_errno(err, "read " + p);
  out.resize(static_cast<std::size_t>(n));
  return Outcome<std::vector<std::uint8_t>>(out);
}

Status NativeHost::write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) {
  std::string p = "/sys/bus/pci/devices/" + bdf + "/config";
  int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(errno, "write " + p);
  std::uint8_t bytes[2] = {static_cast<std::uint8_t>(value & 0xff), static_cast<std::uint8_t>(value >> 8)};
  ssize_t n = ::pwrite(fd, bytes, 2, offset);
  int err = errno;
  ::close(fd);
  if (n != 2) return Status::from_errno(n < 0 ? err : EIO, "write " + p + " at " + std::to_string(offset));
  return success();
}

Outcome<std::string> NativeHost::nvme_fabrics_connect(const std::string& options) {
  const char* dev = "/dev/nvme-fabrics";
  int fd = ::open(dev, O_RDWR | O_CLOEXEC);
  if (fd < 0) return Outcome<std::string>::from_errno(errno, std::string("open ") + dev);
  ssize_t n = ::write(fd, options.data(), options.size());
  if (n < 0) {
    Status s = Status::from_errno(errno, "connect (" + options + ")");
    ::close(fd);
    return Outcome<std::string>::fail(s);
  }
  char reply[256] = {};
  n = ::read(fd, reply, sizeof reply - 1);
  int err = errno;
  ::close(fd);
  if (n < 0) return Outcome<std::string>::from_errno(err, "read the connect reply");
  std::string r(reply, static_cast<std::size_t>(n));
  while (!r.empty() && r.back() == '\n') r.pop_back();
  return Outcome<std::string>(r);
}

}  // namespace railyard
