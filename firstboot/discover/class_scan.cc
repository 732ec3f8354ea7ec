// Enumeration of a device class from /sys/class/<subsystem>: one readlink per device.
#include <algorithm>

#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

std::vector<std::string> scan(const char* subsystem) {
  std::vector<std::string> out;
  const std::string dir = std::string("/sys/class/") + subsystem + "/";
  for (const auto& name : sysfs::list(dir))
    if (auto path = sysfs::resolve(dir + name)) out.push_back(*path);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace railyard::discovery
