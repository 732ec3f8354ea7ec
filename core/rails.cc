#include "rails.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "affinity.h"
#include "net.h"
#include "text.h"

namespace railyard {

namespace {

struct Pair {
  Affinity cls;
  int hops;
  std::size_t gpu;
  std::size_t nic;
};

std::vector<Pair> sorted_pairs(const Inventory& inv, const std::vector<std::size_t>& nics) {
  std::vector<Pair> pairs;
  for (std::size_t g = 0; g < inv.gpus.size(); ++g)
    for (std::size_t n : nics)
      pairs.push_back(
          {classify_affinity(inv.gpus[g].pci, inv.nics[n].pci), bridge_hops(inv.gpus[g].pci, inv.nics[n].pci), g, n});
  // GPUs and NICs are sorted by PCI address, so their indices order ties by address.
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return std::tie(a.cls, a.hops, a.gpu, a.nic) < std::tie(b.cls, b.hops, b.gpu, b.nic);
  });
  return pairs;
}

// Pins every GPU to one of at most `want` NICs, nearest pairs first, at most `per_nic` each.
std::map<std::size_t, std::size_t> pin(const std::vector<Pair>& pairs, std::size_t want, std::size_t per_nic,
                                       std::set<std::size_t>& chosen) {
  std::map<std::size_t, std::size_t> gpu_to_nic;
  std::map<std::size_t, std::size_t> load;
  for (const auto& p : pairs) {
    if (gpu_to_nic.count(p.gpu)) continue;
    bool in = chosen.count(p.nic) > 0;
    if (!in && chosen.size() >= want) continue;
    if (load[p.nic] >= per_nic) continue;
    chosen.insert(p.nic);
    gpu_to_nic[p.gpu] = p.nic;
    ++load[p.nic];
  }
  return gpu_to_nic;
}

std::optional<std::size_t> find_nic(const Inventory& inv, const std::string& ref) {
  auto pci = normalize_pci(ref);
  auto names = [&](const std::string& ifname, const std::string& bdf) { return ifname == ref || (pci && bdf == *pci); };
  for (std::size_t i = 0; i < inv.nics.size(); ++i) {
    if (names(inv.nics[i].ifname, inv.nics[i].pci.bdf)) return i;
    // udev's name by bus path: the same recipe whatever a .link file or net.ifnames=0 named it.
    if (inv.nics[i].net_name_path == ref || inv.nics[i].id_path == ref) return i;
    // A bonded NIC answers to its ports too: a recipe written for the card names it either way.
    for (const auto& p : inv.nics[i].bond_ports)
      if (names(p.ifname, p.pci)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::size_t> rail_candidates(const Inventory& inv, bool soft_roce) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < inv.nics.size(); ++i) {
    const Nic& n = inv.nics[i];
    if (n.management || n.pci.bdf.empty() || !n.master.empty()) continue;
    if (n.rdma_device || soft_roce) out.push_back(i);
  }
  return out;
}

RailMap map_rails(const Inventory& inv, const HardwareSpec& hw, bool soft_roce) {
  RailMap out;
  std::vector<std::size_t> candidates = rail_candidates(inv, soft_roce);
  std::vector<std::size_t> pool;  // NICs the rails are chosen from
  std::size_t want = 0;           // number of rails; 0: decided by the GPUs' nearest NICs

  if (!hw.rails.empty()) {
    for (const auto& ref : hw.rails) {
      auto i = find_nic(inv, ref);
      if (!i) {
        out.problems.push_back("hardware.rails names '" + ref + "', which is not on this node");
      } else if (inv.nics[*i].management) {
        out.problems.push_back("hardware.rails names '" + ref + "', the management interface; it is never a rail");
      } else if (std::find(pool.begin(), pool.end(), *i) != pool.end()) {
        out.problems.push_back("hardware.rails names " + inv.nics[*i].ifname + " (" + inv.nics[*i].pci.bdf + ") twice");
      } else if (std::find(candidates.begin(), candidates.end(), *i) == candidates.end()) {
        out.problems.push_back("hardware.rails names '" + ref + "' (" + inv.nics[*i].ifname +
                               "), which has no RDMA device");
      } else {
        pool.push_back(*i);
      }
    }
    if (!out.problems.empty()) return out;
    want = pool.size();
  } else {
    pool = candidates;
    want = hw.rail_count > 0 ? static_cast<std::size_t>(hw.rail_count) : 0;
  }
  if (want > pool.size()) {
    out.problems.push_back("the recipe wants " + std::to_string(want) + " rails; " + std::to_string(pool.size()) +
                           " RDMA NIC(s) found" + (soft_roce ? " (Soft-RoCE: NICs other than management)" : ""));
    return out;
  }
  if (pool.empty()) {
    out.problems.push_back("no RDMA NIC found for the rails");
    return out;
  }

  std::set<std::size_t> chosen;
  std::map<std::size_t, std::size_t> gpu_to_nic;
  if (!inv.gpus.empty()) {
    auto pairs = sorted_pairs(inv, pool);
    if (want == 0) {  // as many rails as distinct nearest NICs
      std::set<std::size_t> nearest;
      for (std::size_t g = 0; g < inv.gpus.size(); ++g)
        for (const auto& p : pairs)
          if (p.gpu == g) {
            nearest.insert(p.nic);
            break;
          }
      want = nearest.size();
    }
    std::size_t per_nic = (inv.gpus.size() + want - 1) / want;
    gpu_to_nic = pin(pairs, want, per_nic, chosen);
  } else if (want == 0) {
    want = pool.size();
  }
  // Rails the GPUs did not claim (GPU-less nodes, more rails than GPUs): by PCI address,
  // or in the recipe's order when it lists them.
  for (std::size_t n : pool)
    if (chosen.size() < want) chosen.insert(n);

  // Rail order: by the first GPU pinned to each, then NICs without GPUs in pool order.
  std::vector<std::size_t> order;
  for (std::size_t g = 0; g < inv.gpus.size(); ++g) {
    if (!gpu_to_nic.count(g)) {  // cannot happen while rails × per-NIC share ≥ GPUs; said, not thrown
      out.problems.push_back("GPU " + inv.gpus[g].pci.bdf + " could not be pinned to a rail");
      return out;
    }
    std::size_t n = gpu_to_nic.at(g);
    if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
  }
  for (std::size_t n : pool)
    if (chosen.count(n) && std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);

  for (std::size_t i = 0; i < order.size(); ++i) {
    Rail r;
    r.index = static_cast<int>(i);
    r.nic = order[i];
    for (std::size_t g = 0; g < inv.gpus.size(); ++g)
      if (gpu_to_nic.at(g) == order[i]) {
        r.gpus.push_back(g);
        Affinity a = classify_affinity(inv.gpus[g].pci, inv.nics[order[i]].pci);
        if (!r.affinity || a > *r.affinity) r.affinity = a;
      }
    if (r.affinity && *r.affinity > hw.max_affinity)
      out.warnings.push_back("rail " + std::to_string(i) + " (" + inv.nics[order[i]].ifname + "): GPU↔NIC affinity " +
                             to_string(*r.affinity) + " is worse than the recipe allows (" +
                             to_string(hw.max_affinity) + ")");
    out.rails.push_back(std::move(r));
  }
  for (std::size_t n : candidates)
    if (!chosen.count(n)) out.non_rail.push_back(n);
  return out;
}

std::vector<std::string> missing_hardware(const Inventory& inv, const HardwareSpec& hw, bool soft_roce) {
  std::vector<std::string> out;
  if (hw.gpu_count > 0 && inv.gpus.size() < static_cast<std::size_t>(hw.gpu_count))
    out.push_back(plural(static_cast<std::size_t>(hw.gpu_count), "GPU") + " wanted, " +
                  std::to_string(inv.gpus.size()) + " present");
  const std::vector<std::size_t> candidates = rail_candidates(inv, soft_roce);
  for (const auto& ref : hw.rails) {
    auto i = find_nic(inv, ref);
    if (!i) out.push_back("rail NIC '" + ref + "' (hardware.rails) not present");
    else if (!inv.nics[*i].management && std::find(candidates.begin(), candidates.end(), *i) == candidates.end())
      out.push_back("rail NIC '" + ref + "' (" + inv.nics[*i].ifname + ") has no RDMA device yet");
  }
  if (hw.rails.empty() && hw.rail_count > 0 && candidates.size() < static_cast<std::size_t>(hw.rail_count)) {
    std::vector<std::string> names;
    for (std::size_t n : candidates) names.push_back(inv.nics[n].ifname);
    out.push_back(plural(static_cast<std::size_t>(hw.rail_count), "rail NIC") + " wanted, " +
                  std::to_string(candidates.size()) + (soft_roce ? " present" : " with an RDMA device") +
                  (names.empty() ? "" : " (" + join(names, " ") + ")"));
  }
  return out;
}

nlohmann::ordered_json rails_json(const Inventory& inv, const RailMap& map) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& r : map.rails) {
    const Nic& nic = inv.nics[r.nic];
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (std::size_t g : r.gpus) gpus.push_back(inv.gpus[g].pci.bdf);
    nlohmann::ordered_json rail = {
        {"index", r.index},
        {"ifname", nic.ifname},
        {"nic_pci", nic.pci.bdf},
        {"rdma_device", nic.rdma_device ? nlohmann::ordered_json(*nic.rdma_device) : nlohmann::ordered_json(nullptr)},
        {"gpu_pcis", gpus},
        {"affinity", r.affinity ? nlohmann::ordered_json(to_string(*r.affinity)) : nlohmann::ordered_json(nullptr)}};
    if (nic.bonded()) {
      nlohmann::ordered_json ports = nlohmann::ordered_json::array();
      for (const auto& p : nic.bond_ports) ports.push_back(p.ifname);
      rail["bond_ports"] = std::move(ports);
    }
    out.push_back(std::move(rail));
  }
  return out;
}

}  // namespace railyard
