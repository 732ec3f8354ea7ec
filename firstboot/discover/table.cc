#include "table.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "affinity.h"

namespace railyard {

std::string inventory_table(const Inventory& inv, const RailMap& map) {
  std::ostringstream out;
  std::vector<std::size_t> nics = rail_candidates(inv, false);
  auto column_name = [&](std::size_t n) { return inv.nics[n].rdma_device.value_or(inv.nics[n].ifname); };
  if (!inv.gpus.empty() && !nics.empty()) {
    // Columns as wide as the longest device name and two spaces ("mlx5_bond_0",
    // "rdmap16s27"), at least 10: names never run into each other.
    int w = 10;
    for (std::size_t n : nics) w = std::max(w, static_cast<int>(column_name(n).size()) + 2);
    out << std::left << std::setw(8) << "";
    for (std::size_t n : nics) out << std::setw(w) << column_name(n);
    out << "NUMA\n";
    for (std::size_t g = 0; g < inv.gpus.size(); ++g) {
      out << std::setw(8) << ("GPU" + std::to_string(g));
      for (std::size_t n : nics) out << std::setw(w) << to_string(classify_affinity(inv.gpus[g].pci, inv.nics[n].pci));
      out << inv.gpus[g].pci.numa_node << "\n";
    }
    out << "\n";
  }
  out << "GPUs: " << inv.gpus.size() << "\n";
  for (std::size_t g = 0; g < inv.gpus.size(); ++g) {
    const auto& p = inv.gpus[g].pci;
    out << "  GPU" << g << "  " << p.bdf << "  " << p.vendor << ":" << p.device << "  numa " << p.numa_node << "  "
        << p.current_link_speed << " x" << p.current_link_width;
    if (p.current_link_speed != p.max_link_speed || p.current_link_width != p.max_link_width)
      out << " (max " << p.max_link_speed << " x" << p.max_link_width << ")";
    if (p.model) out << "  " << *p.model;
    out << "\n";
  }
  out << "NICs: " << inv.nics.size() << "\n";
  // The same for the NIC list: interface (up to 15 characters) and RDMA device columns as
  // wide as their longest entry.
  int wif = 14, wrdma = 8;
  for (const auto& n : inv.nics) {
    wif = std::max(wif, static_cast<int>(n.ifname.size()));
    wrdma = std::max(wrdma, static_cast<int>(n.rdma_device.value_or("-").size()));
  }
  for (const auto& n : inv.nics) {
    out << "  " << std::setw(wif) << n.ifname << " " << n.pci.bdf << "  " << std::setw(wrdma)
        << n.rdma_device.value_or("-") << " numa " << n.pci.numa_node << "  "
        << (n.speed_mbps > 0 ? std::to_string(n.speed_mbps) + " Mb/s" : "speed ?") << "  " << n.operstate
        << (n.management ? "  [management]" : "") << (n.pci.model ? "  " + *n.pci.model : "") << "\n";
    if (n.bonded()) {
      out << "  " << std::setw(wif) << ""
          << " " << (n.bond_mode.empty() ? "bond" : n.bond_mode) << " of";
      for (std::size_t i = 0; i < n.bond_ports.size(); ++i) {
        const BondPort& p = n.bond_ports[i];
        out << (i ? ", " : " ") << p.ifname << " " << (p.pci.empty() ? "-" : p.pci) << " "
            << (p.speed_mbps > 0 ? std::to_string(p.speed_mbps) + " Mb/s" : "speed ?") << " " << p.operstate;
      }
      out << "\n";
    }
  }
  out << "rails: " << map.rails.size() << "\n";
  for (const auto& r : map.rails) {
    const Nic& n = inv.nics[r.nic];
    out << "  rail " << r.index << "  " << n.ifname << "  " << n.pci.bdf << "  " << n.rdma_device.value_or("-");
    for (std::size_t g : r.gpus) out << "  GPU" << g;
    if (r.affinity) out << "  (" << to_string(*r.affinity) << ")";
    out << "\n";
  }
  for (std::size_t n : map.non_rail) out << "  non-rail  " << inv.nics[n].ifname << "  " << inv.nics[n].pci.bdf << "\n";
  for (const auto& p : map.problems) out << "PROBLEM: " << p << "\n";
  for (const auto& w : map.warnings) out << "warning: " << w << "\n";
  return out.str();
}

}  // namespace railyard
