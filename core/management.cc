#include "management.h"

#include "net.h"
#include "text.h"

namespace railyard {

std::string mark_management(Inventory& inv, const ManagementSpec& spec, const std::optional<NodeEntry>& node,
                            const std::optional<std::string>& default_route_ifname) {
  for (auto& n : inv.nics) n.management = false;
  auto mark_first = [&](auto pred, const std::string& how) -> std::string {
    for (auto& n : inv.nics)
      if (pred(n)) {
        n.management = true;
        return how;
      }
    return "";
  };
  std::string how;
  if (!spec.mac.empty()) {
    std::string mac = normalize_mac(spec.mac).value_or(spec.mac);
    how = mark_first([&](const Nic& n) { return n.mac == mac; }, "recipe management.mac " + mac);
  } else if (!spec.pci.empty()) {
    std::string pci = normalize_pci(spec.pci).value_or(spec.pci);
    how = mark_first([&](const Nic& n) { return n.pci.bdf == pci; }, "recipe management.pci " + pci);
  } else if (!spec.name.empty()) {
    how = mark_first([&](const Nic& n) { return glob_match(spec.name, n.ifname); },
                     "recipe management.name " + spec.name);
  } else if (node && !node->mac.empty()) {
    how = mark_first([&](const Nic& n) { return n.mac == node->mac; }, "node identity MAC " + node->mac);
  } else if (default_route_ifname) {
    how = mark_first([&](const Nic& n) { return n.ifname == *default_route_ifname; },
                     "default route via " + *default_route_ifname);
  }
  return how;
}

}  // namespace railyard
