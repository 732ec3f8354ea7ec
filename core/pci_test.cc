// PCI paths as sysfs links give them, and PCIe link speeds (pci.cc).
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "pci.h"

using namespace railyard;

namespace {

// "host_bridge chain..." of a parsed sysfs path, or "nothing".
std::string parsed(std::string_view path) {
  auto loc = parse_pci_syspath(path);
  if (!loc) return "nothing";
  std::string out = loc->host_bridge;
  for (const auto& f : loc->chain) out += " " + f;
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// parse_pci_syspath

TEST_CASE("parse_pci_syspath: a device below a root port") {
  CHECK(parsed("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0") == "pci0000:15 0000:15:01.0 0000:16:00.0");
}

TEST_CASE("parse_pci_syspath: what lies below the function (net/eth0) is dropped") {
  CHECK(parsed("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/net/eth0") == "pci0000:15 0000:15:01.0 0000:16:00.0");
  CHECK(parsed("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.1/infiniband/mlx5_1") ==
        "pci0000:15 0000:15:01.0 0000:16:00.1");
}

TEST_CASE("parse_pci_syspath: a virtio NIC ends at its PCI function") {
  CHECK(parsed("/sys/devices/pci0000:00/0000:00:03.0/virtio1/net/eth1") == "pci0000:00 0000:00:03.0");
}

TEST_CASE("parse_pci_syspath: the relative form a /sys/class/net link holds") {
  CHECK(parsed("../../devices/pci0000:00/0000:00:03.0/virtio1/net/eth1") == "pci0000:00 0000:00:03.0");
}

TEST_CASE("parse_pci_syspath: virtual devices have no PCI location") {
  CHECK(parsed("/sys/devices/virtual/net/lo") == "nothing");
  CHECK(parsed("/sys/devices/virtual/net/bond0") == "nothing");
  CHECK(parsed("/sys/devices/pci0000:00") == "nothing");  // the host bridge alone is no function
  CHECK(parsed("") == "nothing");
}

TEST_CASE("parse_pci_syspath: nested switches keep every bridge in order") {
  CHECK(parsed("/sys/devices/pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:04.0/0000:9a:00.0/0000:9b:00.0/"
               "0000:9c:00.0/net/ens9f0np0") ==
        "pci0000:97 0000:97:01.0 0000:98:00.0 0000:99:04.0 0000:9a:00.0 0000:9b:00.0 0000:9c:00.0");
}

TEST_CASE("parse_pci_syspath: a non-zero PCI domain") {
  CHECK(parsed("/sys/devices/pci0001:00/0001:00:00.0/0001:01:00.0/net/enP1p1s0") ==
        "pci0001:00 0001:00:00.0 0001:01:00.0");
}

// ---------------------------------------------------------------------------------------------
// pcie_generation

TEST_CASE("pcie_generation: sysfs link speeds of every generation") {
  CHECK(pcie_generation("2.5 GT/s PCIe") == 1);
  CHECK(pcie_generation("5.0 GT/s PCIe") == 2);
  CHECK(pcie_generation("8.0 GT/s PCIe") == 3);
  CHECK(pcie_generation("16.0 GT/s PCIe") == 4);
  CHECK(pcie_generation("32.0 GT/s PCIe") == 5);
  CHECK(pcie_generation("64.0 GT/s PCIe") == 6);
}

TEST_CASE("pcie_generation: speeds written without the decimal") {
  CHECK(pcie_generation("16 GT/s") == 4);
  CHECK(pcie_generation("5 GT/s") == 2);
  CHECK(pcie_generation("8 GT/s") == 3);
  CHECK(pcie_generation("32 GT/s") == 5);
}

TEST_CASE("pcie_generation: unknown speeds are 0") {
  CHECK(pcie_generation("Unknown") == 0);
  CHECK(pcie_generation("Unknown speed") == 0);
  CHECK(pcie_generation("") == 0);
  CHECK(pcie_generation("128.0 GT/s PCIe") == 0);
  CHECK(pcie_generation("25 GT/s") == 0);
}
