#include "pcie_layout.h"

#include "text.h"

namespace railyard {

namespace {

// Bus numbers of the two expanders' root buses; each hides the buses below it from the other.
constexpr unsigned kNuma0Bus = 0x10;
constexpr unsigned kNuma1Bus = 0x20;

std::string guest_bus(unsigned bus) { return "0000:" + hex(bus, 2).substr(2) + ":00.0"; }

std::string slot(unsigned device) { return hex(device, 2); }

}  // namespace

PcieLayout pcie_layout(int rails) {
  PcieLayout out;
  int near = (rails + 1) / 2;  // NUMA node 0
  int far = rails / 2;         // NUMA node 1, behind the switch
  int chassis = 1;
  out.devices.push_back("pxb-pcie,id=pxb0,bus_nr=" + std::to_string(kNuma0Bus) + ",numa_node=0,bus=pcie.0,addr=0x3");
  out.devices.push_back("pxb-pcie,id=pxb1,bus_nr=" + std::to_string(kNuma1Bus) + ",numa_node=1,bus=pcie.0,addr=0x4");
  for (int i = 0; i < near; ++i) {
    std::string port = "rp" + std::to_string(i);
    out.devices.push_back("pcie-root-port,id=" + port + ",bus=pxb0,addr=" + slot(static_cast<unsigned>(i)) +
                          ",chassis=" + std::to_string(chassis++) + ",slot=0");
    out.rails.push_back({i, 0, false, port, guest_bus(kNuma0Bus + 1 + static_cast<unsigned>(i))});
  }
  if (far > 0) {
    // root port (bus 0x20) → upstream port (bus 0x21) → downstream ports (bus 0x22) → NICs (0x23…)
    out.devices.push_back("pcie-root-port,id=rp-switch,bus=pxb1,addr=0x00,chassis=" + std::to_string(chassis++) +
                          ",slot=0");
    out.devices.push_back("x3130-upstream,id=switch-up,bus=rp-switch");
    for (int i = 0; i < far; ++i) {
      std::string port = "switch-down" + std::to_string(i);
      out.devices.push_back("xio3130-downstream,id=" + port + ",bus=switch-up,addr=" + slot(static_cast<unsigned>(i)) +
                            ",chassis=" + std::to_string(chassis++) + ",slot=0");
      out.rails.push_back({near + i, 1, true, port, guest_bus(kNuma1Bus + 3 + static_cast<unsigned>(i))});
    }
  }
  return out;
}

}  // namespace railyard
