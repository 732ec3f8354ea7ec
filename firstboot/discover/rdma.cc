// RDMA devices (/sys/class/infiniband): ports, state, link layer and the GID table, with
// the interface each serves. Soft-RoCE devices have no PCI parent: their GIDs name it.
#include "parts.h"
#include "sysfs.h"

#include <algorithm>
#include <cstdlib>

namespace railyard::discovery {

namespace {

// "4: ACTIVE" → "ACTIVE"
std::string state_word(const std::string& s) {
  auto colon = s.find(": ");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

bool all_zero(const std::string& gid) { return gid.find_first_not_of("0:") == std::string::npos; }

RdmaPort read_port(const std::string& dir, int number) {
  RdmaPort p;
  p.port = number;
  p.state = state_word(sysfs::read_or(dir + "/state", ""));
  p.phys_state = state_word(sysfs::read_or(dir + "/phys_state", ""));
  p.link_layer = sysfs::read_or(dir + "/link_layer", "");
  // One pass over the table's entries; unused entries read as zeros (or fail) and are skipped.
  for (const auto& name : sysfs::list(dir + "/gids")) {
    int index = std::atoi(name.c_str());
    auto gid = sysfs::read(dir + "/gids/" + name);
    if (!gid || all_zero(*gid)) continue;
    auto type = sysfs::read(dir + "/gid_attrs/types/" + name);
    if (!type) continue;
    p.gids.push_back({index, *gid, *type, sysfs::read_or(dir + "/gid_attrs/ndevs/" + name, "")});
  }
  std::sort(p.gids.begin(), p.gids.end(), [](const Gid& a, const Gid& b) { return a.index < b.index; });
  return p;
}

}  // namespace

std::vector<RdmaDevice> rdma_devices() {
  std::vector<RdmaDevice> out;
  for (const auto& path : scan("infiniband")) {
    RdmaDevice d;
    d.name = path.substr(path.find_last_of('/') + 1);
    if (auto pci = pci_syspath_of(path)) d.pci = parse_pci_syspath(*pci)->chain.back();
    for (const auto& port : sysfs::list(path + "/ports")) {
      int n = std::atoi(port.c_str());
      if (n > 0) d.ports.push_back(read_port(path + "/ports/" + port, n));
    }
    // The interface: the link-local GID's ndev (physical, never the VLAN), else rxe's parent.
    if (const RdmaPort* p = d.port(1))
      for (const auto& g : p->gids)
        if (!g.ipv4_mapped() && !g.ndev.empty() && g.ndev.find('.') == std::string::npos) {
          d.netdev = g.ndev;
          break;
        }
    if (d.netdev.empty()) d.netdev = sysfs::read_or(path + "/parent", "");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace railyard::discovery
