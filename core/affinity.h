// GPU↔NIC affinity in the vocabulary of `nvidia-smi topo -m`.
#pragma once

#include "pci.h"
#include "recipe.h"

namespace railyard {

// PIX: at most one PCIe switch between them; PXB: several bridges under one root port
// tree; PHB: through the host bridge; NODE: across host bridges of one NUMA node;
// SYS: across NUMA nodes.
Affinity classify_affinity(const PciFunction& a, const PciFunction& b);

// Bridges between the two devices (0 when siblings under one port); a tie-breaker among
// pairs of the same class. Across host bridges it counts both whole chains.
int bridge_hops(const PciFunction& a, const PciFunction& b);

// The bridges a GPU↔NIC transfer crosses below their common ancestor (switch ports whose
// ACS would redirect peer-to-peer traffic up to the root complex).
std::vector<std::string> bridges_between(const PciFunction& a, const PciFunction& b);

}  // namespace railyard
