#include "pci.h"

#include "net.h"

namespace railyard {

std::optional<PciLocation> parse_pci_syspath(std::string_view syspath) {
  auto at = syspath.find("/pci");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = syspath.substr(at + 1);
  PciLocation loc;
  std::size_t start = 0;
  bool first = true;
  while (start < rest.size()) {
    auto slash = rest.find('/', start);
    std::string_view part =
        rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (first) {
      if (part.substr(0, 3) != "pci") return std::nullopt;
      loc.host_bridge = std::string(part);
      first = false;
    } else if (auto bdf = normalize_pci(part); bdf && part.size() == 12) {
      loc.chain.push_back(*bdf);
    } else {
      break;  // "net", "virtio3", "infiniband": below the PCI function
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (loc.chain.empty()) return std::nullopt;
  return loc;
}

int pcie_generation(std::string_view speed) {
  static const std::pair<std::string_view, int> gens[] = {{"2.5 ", 1}, {"5.0 ", 2},  {"5 ", 2},  {"8.0 ", 3},
                                                          {"8 ", 3},   {"16.0 ", 4}, {"16 ", 4}, {"32.0 ", 5},
                                                          {"32 ", 5},  {"64.0 ", 6}, {"64 ", 6}};
  for (auto [prefix, gen] : gens)
    if (speed.substr(0, prefix.size()) == prefix) return gen;
  return 0;
}

}  // namespace railyard
