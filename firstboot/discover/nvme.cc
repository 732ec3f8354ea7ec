// NVMe controllers, local (pcie) and over fabrics (rdma, tcp).
#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

std::vector<NvmeController> nvme_controllers() {
  std::vector<NvmeController> out;
  for (const auto& path : scan("nvme")) {
    NvmeController c;
    c.name = path.substr(path.find_last_of('/') + 1);
    const std::string d = path + "/";
    c.transport = sysfs::read_or(d + "transport", "");
    c.address = sysfs::read_or(d + "address", "");
    c.subsysnqn = sysfs::read_or(d + "subsysnqn", "");
    c.state = sysfs::read_or(d + "state", "");
    c.model = sysfs::read_or(d + "model", "");
    if (auto pci = pci_syspath_of(path)) c.pci = parse_pci_syspath(*pci)->chain.back();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace railyard::discovery
