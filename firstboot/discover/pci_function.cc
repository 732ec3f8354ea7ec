// PCI functions: identity, NUMA node, link speed and width, and their place in the tree.
#include <algorithm>

#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

std::optional<PciFunction> read_pci_function(const std::string& syspath) {
  auto loc = parse_pci_syspath(syspath);
  if (!loc) return std::nullopt;
  PciFunction p;
  p.bdf = loc->chain.back();
  p.host_bridge = loc->host_bridge;
  p.bridges.assign(loc->chain.begin(), loc->chain.end() - 1);
  const std::string d = syspath + "/";
  p.numa_node = sysfs::read_int_or(d + "numa_node", -1);
  p.vendor = sysfs::read_or(d + "vendor", "");
  p.device = sysfs::read_or(d + "device", "");
  p.subsystem_vendor = sysfs::read_or(d + "subsystem_vendor", "");
  p.subsystem_device = sysfs::read_or(d + "subsystem_device", "");
  p.class_code = sysfs::read_or(d + "class", "");
  p.driver = sysfs::link_name(d + "driver").value_or("");
  p.current_link_speed = sysfs::read_or(d + "current_link_speed", "");
  p.current_link_width = sysfs::read_int_or(d + "current_link_width", 0);
  p.max_link_speed = sysfs::read_or(d + "max_link_speed", "");
  p.max_link_width = sysfs::read_int_or(d + "max_link_width", 0);
  return p;
}

std::vector<std::string> pci_syspaths() {
  std::vector<std::string> out;
  const std::string dir = "/sys/bus/pci/devices/";
  for (const auto& name : sysfs::list(dir))
    if (auto path = sysfs::resolve(dir + name)) out.push_back(*path);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> pci_syspath_of(const std::string& class_syspath) {
  auto dev = sysfs::resolve(class_syspath + "/device");
  if (!dev) return std::nullopt;
  // virtio: the net device's parent is virtioN, whose parent is the PCI function.
  auto slash = dev->find_last_of('/');
  if (slash != std::string::npos && dev->compare(slash + 1, 6, "virtio") == 0) dev = dev->substr(0, slash);
  if (!parse_pci_syspath(*dev)) return std::nullopt;
  return dev;
}

}  // namespace railyard::discovery
