// NativePciConfig: a function's configuration space through sysfs's `config` file.
#include "kernel/pci_config_native.h"

#include <fcntl.h>
#include <unistd.h>

namespace railyard {

Outcome<std::vector<std::uint8_t>> NativePciConfig::pci_config(const std::string& bdf) {
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

Status NativePciConfig::write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) {
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

}  // namespace railyard
