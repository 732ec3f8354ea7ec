// Where a lab VM's rail NICs sit on the PCIe tree: like a real two-socket server, half of
// them on root ports of NUMA node 0, the other half behind a PCIe switch on NUMA node 1, so
// that discovery, rail mapping and NUMA placement meet distinct parent chains.
#pragma once

#include <string>
#include <vector>

namespace railyard {

// One rail NIC's slot: the QEMU bus it plugs into and where the guest will see it.
struct RailSlot {
  int rail = 0;
  int numa_node = 0;
  bool behind_switch = false;
  std::string qemu_bus;   // the `bus=` of its -device
  std::string guest_pci;  // its PCI function as the guest sees it ("0000:11:00.0")
};

struct PcieLayout {
  std::vector<std::string> devices;  // -device values of the expander buses, root ports and switch, in order
  std::vector<RailSlot> rails;
};

inline constexpr int kMaxRails = 8;
// Root-complex slots of the fixed devices (pcie.0); the guest names the management NIC enp0s2.
inline constexpr int kManagementSlot = 2;
inline constexpr int kSerialSlot = 5;

// The layout for `rails` NICs (1..kMaxRails): rails 0..⌈n/2⌉-1 on root ports of a pxb-pcie
// expander on NUMA node 0 (buses 0x11…), the rest behind an x3130 switch under a root port
// of a pxb-pcie expander on NUMA node 1 (buses 0x23…). Guest bus numbers are the ones the
// firmware assigns, depth first.
PcieLayout pcie_layout(int rails);

}  // namespace railyard
