// GIDs read through libibverbs must read exactly as sysfs writes them: the plan, the checks
// and the NCCL profile compare and print these strings.
#include <doctest/doctest.h>

#include "discover/parts.h"

namespace railyard::discovery {

TEST_CASE("GIDs from libibverbs read as sysfs writes them") {
  const uint8_t link_local[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x01};
  Gid g = verbs_gid(0, link_local, false, "enp17s0");
  CHECK(g.index == 0);
  CHECK(g.gid == "fe80:0000:0000:0000:5054:00ff:fe12:3401");
  CHECK(g.type == "IB/RoCE v1");
  CHECK(g.ndev == "enp17s0");
  CHECK_FALSE(g.ipv4_mapped());

  const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 11};
  Gid v2 = verbs_gid(3, mapped, true, "enp17s0.100");
  CHECK(v2.gid == "0000:0000:0000:0000:0000:ffff:c612:000b");
  CHECK(v2.type == "RoCE v2");
  CHECK(v2.ipv4_mapped());
}

TEST_CASE("a node GUID in sysfs's four groups") {
  const uint8_t guid[8] = {0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x01};
  CHECK(hex_groups(guid, 8) == "5054:00ff:fe12:3401");
  CHECK(hex_groups(guid, 0).empty());
}

}  // namespace railyard::discovery
