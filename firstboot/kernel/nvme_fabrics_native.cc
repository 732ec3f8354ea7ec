// NativeNvmeFabrics: one connect through /dev/nvme-fabrics, as nvme-cli makes it.
#include "kernel/nvme_fabrics_native.h"

#include <fcntl.h>
#include <unistd.h>

namespace railyard {

Outcome<std::string> NativeNvmeFabrics::nvme_fabrics_connect(const std::string& options) {
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
