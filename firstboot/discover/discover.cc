#include "discover.h"

#include "parts.h"

namespace railyard {

Inventory discover() {
  using namespace discovery;
  Inventory inv;
  std::vector<std::string> pci = pci_syspaths();
  inv.gpus = gpus(pci);
  inv.nics = nics();
  inv.rdma = rdma_devices();
  fold_bonds(inv.nics, inv.rdma);
  inv.nvme = nvme_controllers();
  inv.numa = numa_nodes();
  for (auto& nic : inv.nics)
    for (const auto& d : inv.rdma)
      if (d.netdev == nic.ifname || (d.pci && d.pci == nic.pci.bdf && d.netdev.empty())) {
        nic.rdma_device = d.name;
        break;
      }
  // The bridges above every GPU and NIC, for the topology.
  for (const auto& path : pci) {
    auto loc = parse_pci_syspath(path);
    if (!loc) continue;
    const std::string& bdf = loc->chain.back();
    auto is_bridge_of_interest = [&] {
      for (const auto& g : inv.gpus)
        for (const auto& b : g.pci.bridges)
          if (b == bdf) return true;
      for (const auto& n : inv.nics)
        for (const auto& b : n.pci.bridges)
          if (b == bdf) return true;
      return false;
    };
    if (is_bridge_of_interest())
      if (auto f = read_pci_function(path)) inv.bridges[bdf] = std::move(*f);
  }
  normalize(inv);
  return inv;
}

}  // namespace railyard
