// Enumeration through libudev: the one place that talks to it.
#include <libudev.h>

#include <algorithm>
#include <memory>

#include "parts.h"

namespace railyard::discovery {

std::vector<std::string> scan(const char* subsystem) {
  std::vector<std::string> out;
  std::unique_ptr<udev, decltype(&udev_unref)> u(udev_new(), udev_unref);
  if (!u) return out;
  std::unique_ptr<udev_enumerate, decltype(&udev_enumerate_unref)> e(udev_enumerate_new(u.get()), udev_enumerate_unref);
  if (!e) return out;
  udev_enumerate_add_match_subsystem(e.get(), subsystem);
  udev_enumerate_scan_devices(e.get());
  for (udev_list_entry* it = udev_enumerate_get_list_entry(e.get()); it; it = udev_list_entry_get_next(it))
    out.emplace_back(udev_list_entry_get_name(it));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace railyard::discovery
