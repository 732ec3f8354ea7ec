// NICs: net devices with a PCI function (virtual interfaces, VLANs and loopback are not NICs).
#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

std::vector<Nic> nics() {
  std::vector<Nic> out;
  for (const auto& path : scan("net")) {
    auto pci_path = pci_syspath_of(path);
    if (!pci_path) continue;
    auto pci = read_pci_function(*pci_path);
    if (!pci) continue;
    Nic n;
    n.ifname = path.substr(path.find_last_of('/') + 1);
    n.pci = std::move(*pci);
    n.virtio = sysfs::resolve(path + "/device").value_or("").find("/virtio") != std::string::npos;
    const std::string d = path + "/";
    n.mac = sysfs::read_or(d + "address", "");
    n.operstate = sysfs::read_or(d + "operstate", "unknown");
    n.speed_mbps = sysfs::read_int_or(d + "speed", -1);
    if (n.speed_mbps <= 0) n.speed_mbps = -1;  // unknown or link down
    n.mtu = sysfs::read_int_or(d + "mtu", 0);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace railyard::discovery
