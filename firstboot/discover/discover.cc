#include "discover.h"

#include <libudev.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "parts.h"
#include "text.h"

namespace railyard {

namespace {

using UdevDevice = std::unique_ptr<udev_device, decltype(&udev_device_unref)>;

std::optional<std::string> property(udev_device* d, const char* key) {
  const char* v = udev_device_get_property_value(d, key);
  if (!v || !*v || !first_control(v).empty()) return std::nullopt;  // never a line break in a table
  return std::string(v);
}

// What udev knows and sysfs does not: its hardware database's names for every GPU and NIC,
// and the interfaces' stable names by bus path. One udev context, one lookup per device.
void name_from_udev(Inventory& inv) {
  std::unique_ptr<udev, decltype(&udev_unref)> u(udev_new(), udev_unref);
  if (!u) return;
  auto pci = [&u](PciFunction& f) {
    UdevDevice d(udev_device_new_from_subsystem_sysname(u.get(), "pci", f.bdf.c_str()), udev_device_unref);
    if (!d) return;
    f.model = property(d.get(), "ID_MODEL_FROM_DATABASE");
    f.vendor_name = property(d.get(), "ID_VENDOR_FROM_DATABASE");
  };
  for (auto& g : inv.gpus) pci(g.pci);
  for (auto& n : inv.nics) {
    pci(n.pci);
    if (n.bonded()) continue;  // a bond has no place on the bus; its ports have
    UdevDevice d(udev_device_new_from_subsystem_sysname(u.get(), "net", n.ifname.c_str()), udev_device_unref);
    if (!d) continue;
    n.id_path = property(d.get(), "ID_PATH");
    n.net_name_path = property(d.get(), "ID_NET_NAME_PATH");
  }
}

}  // namespace

Inventory discover() {
  using namespace discovery;
  Inventory inv;
  // --verbose: which part of a slow discovery takes the time.
  auto t = std::chrono::steady_clock::now();
  auto took = [&t](const char* part) {
    auto now = std::chrono::steady_clock::now();
    spdlog::debug("discover: {} took {} ms", part,
                  std::chrono::duration_cast<std::chrono::milliseconds>(now - t).count());
    t = now;
  };
  std::vector<std::string> pci = pci_syspaths();
  inv.gpus = gpus(pci);
  took("PCI and GPUs");
  inv.nics = nics();
  took("NICs");
  inv.rdma = rdma_devices();
  fold_bonds(inv.nics, inv.rdma);
  took("RDMA devices");
  name_from_udev(inv);
  took("udev names");
  inv.nvme = nvme_controllers();
  inv.numa = numa_nodes();
  took("NVMe and NUMA");
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
  took("bridges");
  normalize(inv);
  return inv;
}

}  // namespace railyard
