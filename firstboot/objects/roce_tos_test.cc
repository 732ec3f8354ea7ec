// RDMA-CM's default ToS (objects/roce_tos.cc): configfs per device, applied and verified.
#include <doctest/doctest.h>

#include "support/host_rig.h"
#include "support/verify_node.h"

TEST_CASE("roce_tos: configfs directory per device, ToS and RoCE v2 mode; missing configfs is unsupported") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_2")};
  rig.host.dirs.insert("/sys/kernel/config/rdma_cm");
  const std::string port = "/sys/kernel/config/rdma_cm/mlx5_2/ports/1/";
  rig.host.files[port + "default_roce_tos"] = "0";
  rig.host.files[port + "default_roce_mode"] = "IB/RoCE v1";
  auto c = rig.run(apply_roce_tos, p);
  CHECK(outcomes(c) == "rail 0 (ens1f0np0): RoCE ToS: changed\nrail 0 (ens1f0np0): RoCE mode: changed\n");
  CHECK(rig.host.dirs.count("/sys/kernel/config/rdma_cm/mlx5_2"));
  CHECK(rig.host.files[port + "default_roce_tos"] == "106");
  CHECK(rig.host.files[port + "default_roce_mode"] == "RoCE v2");
  CHECK(all_unchanged(rig.run(apply_roce_tos, p)));
  Rig bare;
  auto u = bare.run(apply_roce_tos, p);
  REQUIRE(u.size() == 1);
  CHECK(u[0].outcome == ChangeOutcome::unsupported);
  CHECK(u[0].detail.find("configfs not mounted or rdma_cm not loaded") != std::string::npos);
}

TEST_CASE("rail.N.roce_tos: rdma_cm's default ToS for the rail's RDMA device") {
  Node n;
  auto r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "106");  // DSCP 26 << 2 | ECT(0)
  CHECK(r.observed == "106");

  const std::string path = "/sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_tos";
  n.host.files[path] = "0";
  r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0");

  n.host.files.erase(path);
  r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(contains(r.detail, path));
}
