// What a rail's LLDP frames add up to (kernel/lldp_neighbors.cc): neighbours kept apart by
// chassis and port ID, frames counted, a flood told by its rate.
#include <doctest/doctest.h>

#include "kernel/lldp_neighbors.h"

using namespace railyard;

namespace {

LldpNeighbor neighbour(const std::string& chassis, const std::string& port, const std::string& system) {
  LldpNeighbor n;
  n.chassis_id_subtype = 4;
  n.chassis_id = chassis;
  n.port_id_subtype = 5;
  n.port_id = port;
  n.system_name = system;
  n.ttl_s = 120;
  return n;
}

}  // namespace

TEST_CASE("add_frame: the first neighbour heard stays; another is kept beside it, never in its place") {
  LldpHeard h;
  add_frame(h, neighbour("0c:42:a1:00:00:07", "swp7", "leaf-r0"));
  add_frame(h, Outcome<LldpNeighbor>::fail("LLDP TLV 3 (TTL) at byte 30: length 3, expected 2"));
  add_frame(h, neighbour("02:00:00:00:00:66", "eth0", "leaf-r0"));  // a spoofer after the leaf
  auto again = neighbour("0c:42:a1:00:00:07", "swp7", "leaf-r0");
  again.ttl_s = 0;  // the leaf again, shutting down
  add_frame(h, again);
  REQUIRE(h.neighbor);
  CHECK(h.neighbor->chassis_id == "0c:42:a1:00:00:07");
  CHECK(h.neighbor->ttl_s == 0);
  REQUIRE(h.others.size() == 1);
  CHECK(h.others[0].chassis_id == "02:00:00:00:00:66");
  CHECK(h.frames == 4);
  CHECK(h.invalid == "LLDP TLV 3 (TTL) at byte 30: length 3, expected 2");

  // The same chassis on another port is another neighbour (a loop back to the leaf).
  add_frame(h, neighbour("0c:42:a1:00:00:07", "swp8", "leaf-r0"));
  CHECK(h.others.size() == 2);
  // However many chassis a spoofer makes up, a few are kept.
  for (int i = 0; i < 100; ++i) add_frame(h, neighbour("02:00:00:00:01:" + std::to_string(10 + i), "eth0", "x"));
  CHECK(h.others.size() == kLldpMaxOthers);
  CHECK(h.frames == 105);
}

TEST_CASE("add_second: a rate past kLldpFramesPerSecond is a flood, kept at its highest; drops are counted") {
  using std::chrono::milliseconds;
  LldpHeard h;
  add_second(h, 3, 0, milliseconds(1000));
  add_second(h, 50, 0, milliseconds(1000));  // at the limit: not yet a flood
  CHECK(h.flood_per_s == 0);
  add_second(h, 5100, 4000, milliseconds(1020));
  CHECK(h.flood_per_s == 5000);
  CHECK(h.frames == 4000);
  add_second(h, 700, 600, milliseconds(1000));
  CHECK(h.flood_per_s == 5000);
  add_second(h, 0, 0, milliseconds(0));
  CHECK(h.frames == 4600);
}
