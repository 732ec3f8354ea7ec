// PCI functions as discovery sees them, and where they sit in the PCIe tree.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

struct PciFunction {
  std::string bdf;                   // "0000:1b:00.0"
  std::string host_bridge;           // "pci0000:15": the root bus the device hangs off
  std::vector<std::string> bridges;  // ancestors from the root port down, the device excluded
  int numa_node = -1;
  std::string vendor;  // "0x10de"
  std::string device;
  std::string subsystem_vendor;
  std::string subsystem_device;
  std::string class_code;  // "0x030200"
  std::string driver;
  std::string current_link_speed;  // as sysfs says: "16.0 GT/s PCIe"
  int current_link_width = 0;
  std::string max_link_speed;
  int max_link_width = 0;
  // udev's hardware database names (ID_MODEL_FROM_DATABASE, ID_VENDOR_FROM_DATABASE):
  // "GH100 [H100 SXM5 80GB]", "NVIDIA Corporation"; none where udev has none.
  std::optional<std::string> model;
  std::optional<std::string> vendor_name;
};

struct PciLocation {
  std::string host_bridge;
  std::vector<std::string> chain;  // every PCI function from the root port to the device, inclusive
};

// "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0" (or a path below it, like
// ".../0000:16:00.0/net/eth0") → its host bridge and PCI chain; nothing for virtual devices.
std::optional<PciLocation> parse_pci_syspath(std::string_view syspath);

// PCIe generation of a link speed string: "2.5 GT/s" → 1, "5.0" → 2, "8.0" → 3, "16.0" → 4,
// "32.0" → 5, "64.0" → 6; 0 when unknown.
int pcie_generation(std::string_view speed);

}  // namespace railyard
