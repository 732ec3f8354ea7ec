#include "affinity.h"

#include <algorithm>

namespace railyard {

namespace {

std::size_t common_prefix(const PciFunction& a, const PciFunction& b) {
  if (a.host_bridge != b.host_bridge) return 0;
  std::size_t n = 0;
  while (n < a.bridges.size() && n < b.bridges.size() && a.bridges[n] == b.bridges[n]) ++n;
  return n;
}

}  // namespace

Affinity classify_affinity(const PciFunction& a, const PciFunction& b) {
  if (a.host_bridge != b.host_bridge) return a.numa_node == b.numa_node ? Affinity::NODE : Affinity::SYS;
  std::size_t common = common_prefix(a, b);
  if (common == 0) return Affinity::PHB;
  // One switch is an upstream port plus its downstream ports: a device directly below a
  // downstream port of the common switch has at most one bridge left on its side.
  std::size_t below_a = a.bridges.size() - common, below_b = b.bridges.size() - common;
  return below_a <= 1 && below_b <= 1 ? Affinity::PIX : Affinity::PXB;
}

int bridge_hops(const PciFunction& a, const PciFunction& b) {
  std::size_t common = common_prefix(a, b);
  return static_cast<int>(a.bridges.size() + b.bridges.size() - 2 * common);
}

std::vector<std::string> bridges_between(const PciFunction& a, const PciFunction& b) {
  std::size_t common = common_prefix(a, b);
  if (common == 0) return {};
  std::vector<std::string> out(a.bridges.begin() + static_cast<long>(common), a.bridges.end());
  out.insert(out.end(), b.bridges.begin() + static_cast<long>(common), b.bridges.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace railyard
