// Soft-RoCE devices (objects/soft_roce.cc): created once on the physical interface.
#include <doctest/doctest.h>

#include "support/host_rig.h"

TEST_CASE("soft_roce: creates rxe on the physical interface once; a name taken by another is a failure") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "enp17s0", "rxe0"), rail(1, "enp18s0", "rxe1")};
  p.rails[0].soft_roce_device = "rxe0";
  p.rails[0].netdev = "enp17s0.100";  // never on the VLAN device
  p.rails[1].soft_roce_device = "rxe1";
  rig.host.files["/sys/class/infiniband/rxe1/parent"] = "enp99s0";
  auto c = rig.run(apply_soft_roce, p);
  CHECK(outcomes(c) == "rail 0 (enp17s0): Soft-RoCE rxe0: changed\nrail 1 (enp18s0): Soft-RoCE rxe1: failed\n");
  REQUIRE(rig.host.rxe_added.size() == 1);
  CHECK(rig.host.rxe_added[0] == std::pair<std::string, std::string>{"rxe0", "enp17s0"});
  CHECK(c[1].detail == "an RDMA device named rxe1 already serves enp99s0");
  CHECK(rig.run(apply_soft_roce, p)[0].outcome == ChangeOutcome::unchanged);
}
