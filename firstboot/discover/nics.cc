// NICs: net devices with a PCI function (virtual interfaces, VLANs and loopback are not NICs),
// and the bonds of a RoCE LAG, which are.
#include <algorithm>
#include <sstream>

#include "parts.h"
#include "sysfs.h"

namespace railyard::discovery {

namespace {

// What a net device's own directory says of its link.
template <typename T>
void read_link(const std::string& dir, T& n) {
  n.operstate = sysfs::read_or(dir + "operstate", "unknown");
  n.speed_mbps = sysfs::read_int_or(dir + "speed", -1);
  if (n.speed_mbps <= 0) n.speed_mbps = -1;  // unknown or link down
}

}  // namespace

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
    read_link(d, n);
    n.mtu = sysfs::read_int_or(d + "mtu", 0);
    if (auto master = sysfs::resolve(d + "master")) n.master = master->substr(master->find_last_of('/') + 1);
    // The lab's DCB stand-in says so on every interface it serves; hardware has no such files.
    if (auto by = sysfs::read(d + "railyard_lab_qos/driver"))
      n.dcb_emulated_by = *by + " " + sysfs::read_or(d + "railyard_lab_qos/version", "?");
    out.push_back(std::move(n));
  }
  return out;
}

void fold_bonds(std::vector<Nic>& nics, const std::vector<RdmaDevice>& rdma) {
  for (const auto& dev : rdma) {
    if (!dev.pci || dev.netdev.empty()) continue;
    auto named = [&nics](const std::string& name) {
      return std::find_if(nics.begin(), nics.end(), [&name](const Nic& n) { return n.ifname == name; });
    };
    if (named(dev.netdev) != nics.end()) continue;  // the device serves a NIC directly
    const std::string dir = "/sys/class/net/" + dev.netdev + "/";
    auto slaves = sysfs::read(dir + "bonding/slaves");
    if (!slaves) continue;
    std::vector<std::string> ports;
    std::istringstream words(*slaves);
    for (std::string port; words >> port;) ports.push_back(port);
    // The RDMA device's own function must be a port of the bond, or it is not its LAG.
    auto first = std::find_if(ports.begin(), ports.end(), [&](const std::string& p) {
      auto n = named(p);
      return n != nics.end() && n->pci.bdf == *dev.pci;
    });
    if (first == ports.end()) continue;
    Nic bond;
    bond.ifname = dev.netdev;
    bond.pci = named(*first)->pci;
    for (const auto& port : ports) {
      BondPort p{port, "", "unknown", -1};
      read_link("/sys/class/net/" + port + "/", p);
      if (auto member = named(port); member != nics.end()) {
        p.pci = member->pci.bdf;
        bond.virtio = bond.virtio || member->virtio;
        nics.erase(member);
      }
      bond.bond_ports.push_back(std::move(p));
    }
    std::sort(bond.bond_ports.begin(), bond.bond_ports.end(), [](const BondPort& a, const BondPort& b) {
      return a.pci != b.pci ? a.pci < b.pci : a.ifname < b.ifname;
    });
    std::string mode = sysfs::read_or(dir + "bonding/mode", "");  // "802.3ad 4"
    bond.bond_mode = mode.substr(0, mode.find(' '));
    bond.mac = sysfs::read_or(dir + "address", "");
    read_link(dir, bond);
    bond.mtu = sysfs::read_int_or(dir + "mtu", 0);
    bond.rdma_device = dev.name;
    nics.push_back(std::move(bond));
  }
}

}  // namespace railyard::discovery
