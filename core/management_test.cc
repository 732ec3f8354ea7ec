// Recognising the management interface (management.cc): recipe, node identity, default route.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "management.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// `n` with the MAC `mac`.
Nic with_mac(Nic n, const std::string& mac) {
  n.mac = mac;
  return n;
}

// Two on-board ports (eno1, eno2) and a rail NIC, as discovery leaves them: MACs in lower-case
// colon form, sorted by PCI address.
Inventory three_nics() {
  Inventory inv;
  inv.nics.push_back(
      with_mac(nic("ens1f0np0", pci("0000:13:00.0", "pci0000:10", {"0000:10:01.0"})), "0c:42:a1:10:00:00"));
  inv.nics.push_back(with_mac(nic("eno2", pci("0000:04:00.1", "pci0000:00", {"0000:00:1c.0"})), "3c:ec:ef:00:00:02"));
  inv.nics.push_back(with_mac(nic("eno1", pci("0000:04:00.0", "pci0000:00", {"0000:00:1c.0"})), "3c:ec:ef:00:00:01"));
  normalize(inv);
  return inv;
}

// Node gpu-a01 with one rail, whose management MAC is `mac`.
NodeEntry identity(const std::string& mac) {
  NodeEntry n = node({"198.18.0.11"});
  n.mac = mac;
  return n;
}

// The interfaces marked as management, space separated.
std::string marked(const Inventory& inv) {
  std::string out;
  for (const auto& n : inv.nics)
    if (n.management) out += (out.empty() ? "" : " ") + n.ifname;
  return out;
}

}  // namespace

TEST_CASE("management by the recipe's MAC, in any case and separator") {
  for (const char* mac : {"3c:ec:ef:00:00:02", "3C:EC:EF:00:00:02", "3c-ec-ef-00-00-02", "3C-EC-EF-00-00-02"}) {
    CAPTURE(mac);
    Inventory inv = three_nics();
    ManagementSpec spec;
    spec.mac = mac;
    CHECK(mark_management(inv, spec, std::nullopt, std::nullopt) == "recipe management.mac 3c:ec:ef:00:00:02");
    CHECK(marked(inv) == "eno2");
    CHECK(inv.management() == inv.nic("eno2"));
  }
}

TEST_CASE("management by the recipe's PCI address, short form too") {
  for (const char* addr : {"0000:04:00.1", "04:00.1", "0000:04:00.1"}) {
    CAPTURE(addr);
    Inventory inv = three_nics();
    ManagementSpec spec;
    spec.pci = addr;
    CHECK(mark_management(inv, spec, std::nullopt, std::nullopt) == "recipe management.pci 0000:04:00.1");
    CHECK(marked(inv) == "eno2");
  }
}

TEST_CASE("management by the recipe's name pattern: the first match in PCI order") {
  Inventory inv = three_nics();
  ManagementSpec spec;
  spec.name = "eno*";
  CHECK(mark_management(inv, spec, std::nullopt, std::nullopt) == "recipe management.name eno*");
  CHECK(marked(inv) == "eno1");

  spec.name = "eno?";
  inv = three_nics();
  CHECK(mark_management(inv, spec, std::nullopt, std::nullopt) == "recipe management.name eno?");
  CHECK(marked(inv) == "eno1");
}

TEST_CASE("without a recipe match, the node identity's MAC") {
  Inventory inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, identity("3c:ec:ef:00:00:02"), std::nullopt) ==
        "node identity MAC 3c:ec:ef:00:00:02");
  CHECK(marked(inv) == "eno2");
}

TEST_CASE("without recipe match or node identity, the interface of the default route") {
  Inventory inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, std::nullopt, std::string("eno2")) == "default route via eno2");
  CHECK(marked(inv) == "eno2");
  // A node identity without a MAC falls through to the default route.
  inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, identity(""), std::string("eno1")) == "default route via eno1");
  CHECK(marked(inv) == "eno1");
}

TEST_CASE("precedence: recipe, then node identity, then default route") {
  ManagementSpec spec;
  spec.name = "eno1";
  Inventory inv = three_nics();
  CHECK(mark_management(inv, spec, identity("3c:ec:ef:00:00:02"), std::string("ens1f0np0")) ==
        "recipe management.name eno1");
  CHECK(marked(inv) == "eno1");

  inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, identity("3c:ec:ef:00:00:02"), std::string("ens1f0np0")) ==
        "node identity MAC 3c:ec:ef:00:00:02");
  CHECK(marked(inv) == "eno2");

  inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, std::nullopt, std::string("ens1f0np0")) ==
        "default route via ens1f0np0");
  CHECK(marked(inv) == "ens1f0np0");
}

TEST_CASE("nothing matched: \"\" and no NIC marked") {
  Inventory inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, std::nullopt, std::nullopt) == "");
  CHECK(marked(inv) == "");
  CHECK(inv.management() == nullptr);

  // Each source that names nothing on this node.
  ManagementSpec mac;
  mac.mac = "3c:ec:ef:00:00:99";
  inv = three_nics();
  CHECK(mark_management(inv, mac, std::nullopt, std::nullopt) == "");
  CHECK(marked(inv) == "");
  inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, identity("3c:ec:ef:00:00:99"), std::nullopt) == "");
  CHECK(marked(inv) == "");
  inv = three_nics();
  CHECK(mark_management(inv, ManagementSpec{}, std::nullopt, std::string("bond0")) == "");
  CHECK(marked(inv) == "");
}

TEST_CASE("a recipe match that finds nothing does not fall back to node identity or default route") {
  // The recipe's section is set: guessing another interface could take a rail for management.
  ManagementSpec spec;
  spec.name = "enp0s*";
  Inventory inv = three_nics();
  CHECK(mark_management(inv, spec, identity("3c:ec:ef:00:00:02"), std::string("eno1")) == "");
  CHECK(marked(inv) == "");
}

TEST_CASE("marking clears an earlier mark") {
  Inventory inv = three_nics();
  inv.nics[2].management = true;  // ens1f0np0, from an earlier run
  ManagementSpec spec;
  spec.mac = "3c:ec:ef:00:00:01";
  CHECK(mark_management(inv, spec, std::nullopt, std::nullopt) == "recipe management.mac 3c:ec:ef:00:00:01");
  CHECK(marked(inv) == "eno1");
  inv.nics[2].management = true;
  CHECK(mark_management(inv, ManagementSpec{}, std::nullopt, std::nullopt) == "");
  CHECK(marked(inv) == "");
}
