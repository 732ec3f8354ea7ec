// The discover table (table.cc): columns stay aligned whatever the names' lengths.
#include <doctest/doctest.h>

#include <sstream>

#include "discover/table.h"
#include "rails.h"
#include "support/hardware_builder.h"
#include "text.h"

using namespace railyard;
using namespace railyard::test;

TEST_CASE("discover table: RDMA names of 10 or more characters and long interface names keep their columns") {
  Inventory inv = server({{1, 1}, {1, 1}});
  // A RoCE LAG bond's device and an iWARP-style name, as real servers have them.
  const char* devices[] = {"mlx5_bond_0", "rdmap16s27"};
  const char* ifnames[] = {"enp129s0f0np0", "enp16s27f0np01"};
  for (std::size_t i = 0; i < 2; ++i) {
    inv.nics[i].rdma_device = devices[i];
    inv.nics[i].ifname = ifnames[i];
    inv.rdma[i].name = devices[i];
    inv.rdma[i].netdev = ifnames[i];
  }
  std::string table = inventory_table(inv, map_rails(inv, recipe().hardware, false));
  CAPTURE(table);
  auto lines = split(table, '\n');
  REQUIRE(lines.size() > 3);
  // The matrix: every column starts where its header does, names never fused.
  CHECK(lines[0] == "        mlx5_bond_0  rdmap16s27   NUMA");
  std::size_t second = lines[0].find("rdmap16s27");
  CHECK(lines[1].substr(8, 3) == "PIX");
  CHECK(lines[1][second] != ' ');
  // The NIC list: the bus addresses line up.
  std::size_t nic_header = 0;
  while (nic_header < lines.size() && lines[nic_header].rfind("NICs:", 0) != 0) ++nic_header;
  REQUIRE(nic_header + 2 < lines.size());
  std::size_t a = lines[nic_header + 1].find("0000:"), b = lines[nic_header + 2].find("0000:");
  CHECK(a == b);
  std::size_t na = lines[nic_header + 1].find(" numa "), nb = lines[nic_header + 2].find(" numa ");
  CHECK(na == nb);
}
