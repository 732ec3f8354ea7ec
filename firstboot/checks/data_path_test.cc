// The RDMA data path checks (checks/data_path.cc): a WRITE per rail and between every pair of
// rails; and GPUDirect, the same write from and to a GPU's memory.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "checks/data_path.h"
#include "support/verify_node.h"

TEST_CASE("rail.N.rdma_write: the rail's device to itself over its VLAN's RoCE v2 GID") {
  Node n;
  n.device("mlx5_1").ports[0].gids = {test::gid(3, "ens1f0"), test::gid(5, "ens1f0.200")};
  auto r = n.check("rail.1.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "1048576 bytes written and verified");
  CHECK(r.observed == "1048576 bytes verified at 180000 Mb/s");
  REQUIRE(n.rdma.calls.size() == 1);
  const auto& c = n.rdma.calls[0];
  CHECK(c.from == "mlx5_1");
  CHECK(c.from_gid == 5);
  CHECK(c.to == "mlx5_1");
  CHECK(c.to_gid == 5);
  CHECK(c.bytes == 1048576);
  CHECK(c.timeout_ms == n.recipe.selftest.check_timeout_ms);
}

TEST_CASE("rail.N.rdma_write: below the recipe's rdma_min_mbps fails") {
  Node n([](Recipe& rc) {
    rc.selftest.rdma_min_mbps = 100000;
    rc.selftest.rdma_bytes = 4096;
  });
  n.rdma.mbps = 100000;  // exactly the minimum passes
  CHECK(n.check("rail.0.rdma_write").status == CheckStatus::pass);

  n.rdma.mbps = 42000.7;
  auto r = n.check("rail.0.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "4096 bytes verified at 42000 Mb/s");
  CHECK(contains(r.detail, "below the recipe's 100000 Mb/s"));
  CHECK(n.rdma.calls.back().bytes == 4096);
}

TEST_CASE("rail.N.rdma_write: rdma_min_mbps 0 (the default) sets no minimum") {
  Node n;
  n.rdma.mbps = 1;
  auto r = n.check("rail.0.rdma_write");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "1048576 bytes verified at 1 Mb/s");
}

TEST_CASE("rail.N.rdma_write: an error from the data path fails with its message") {
  Node n;
  n.rdma.errors[{"mlx5_2", "mlx5_2"}] = "mlx5_2: RDMA WRITE completion timed out after 10000 ms";
  auto r = n.check("rail.2.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "failed");
  CHECK(r.detail == "mlx5_2: RDMA WRITE completion timed out after 10000 ms");
}

TEST_CASE("rail.N.rdma_write: without a RoCE v2 GID on the VLAN nothing is sent") {
  Node n;
  n.device("mlx5_0").ports[0].gids = {test::gid(3, "ens0f0")};
  auto r = n.check("rail.0.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no RoCE v2 GID");
  CHECK(contains(r.detail, "ens0f0.200"));
  CHECK(n.rdma.calls.empty());

  std::erase_if(n.now.rdma, [](const RdmaDevice& d) { return d.name == "mlx5_0"; });
  r = n.check("rail.0.rdma_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no RDMA device");
  CHECK(n.rdma.calls.empty());
}

TEST_CASE("rails.cross_rdma_write: every pair of rails, reported in order") {
  Node n;
  n.rdma.rates[{"mlx5_0", "mlx5_2"}] = 150000;
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "0→1 180000 Mb/s, 0→2 150000 Mb/s, 1→2 180000 Mb/s");
  REQUIRE(n.rdma.calls.size() == 3);
  std::vector<std::string> pairs;
  for (const auto& c : n.rdma.calls)
    pairs.push_back(c.from + ":" + std::to_string(c.from_gid) + "→" + c.to + ":" + std::to_string(c.to_gid));
  std::sort(pairs.begin(), pairs.end());
  CHECK(pairs == std::vector<std::string>{"mlx5_0:3→mlx5_1:3", "mlx5_0:3→mlx5_2:3", "mlx5_1:3→mlx5_2:3"});
}

TEST_CASE("rails.cross_rdma_write: the rounds meet every pair once and no rail twice in a round") {
  for (std::size_t rails = 0; rails <= 9; ++rails) {
    CAPTURE(rails);
    auto rounds = checks::rail_pair_rounds(rails);
    std::set<std::pair<std::size_t, std::size_t>> met;
    for (const auto& round : rounds) {
      std::set<std::size_t> in_round;
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(b < rails);
        CHECK(in_round.insert(a).second);
        CHECK(in_round.insert(b).second);
        CHECK(met.insert({a, b}).second);
      }
      CHECK(round.size() == rails / 2);
    }
    CHECK(met.size() == rails * (rails - (rails > 0 ? 1 : 0)) / 2);
    CHECK(rounds.size() == (rails < 2 ? 0 : rails % 2 ? rails : rails - 1));
  }
}

TEST_CASE("rails.cross_rdma_write: the pairs of a round are tested at once, no device in two tests") {
  // Four rails: two rounds' worth of pairs at once (0→3 beside 1→2, and so on).
  Node n({}, test::managed_server({{1, 1}, {1, 1}, {1, 1}, {1, 1}}));
  n.rdma.delay = std::chrono::milliseconds(100);
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(n.rdma.calls.size() == 6);
  CHECK(n.rdma.overlapping.empty());
  CHECK(n.rdma.most_at_once == 2);
}

TEST_CASE("rails.cross_rdma_write: one failing pair fails the check, names it, and every pair is still tried") {
  Node n;
  n.rdma.errors[{"mlx5_0", "mlx5_1"}] = "mlx5_0 → mlx5_1: retry exceeded";
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(n.rdma.calls.size() == 3);
  CHECK(r.observed == "0→2 180000 Mb/s, 1→2 180000 Mb/s");
  CHECK(r.detail == "0→1: mlx5_0 → mlx5_1: retry exceeded");

  n.rdma.errors[{"mlx5_1", "mlx5_2"}] = "timeout";
  r = n.check("rails.cross_rdma_write");
  CHECK(r.detail == "0→1: mlx5_0 → mlx5_1: retry exceeded; 1→2: timeout");
  CHECK(r.observed == "0→2 180000 Mb/s");

  n.rdma.errors[{"mlx5_0", "mlx5_2"}] = "down";
  r = n.check("rails.cross_rdma_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "failed");
}

TEST_CASE("rails.cross_rdma_write: a rail without a GID fails its pairs; the others are still tested") {
  Node n;
  n.device("mlx5_2").ports[0].gids.clear();
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  REQUIRE(n.rdma.calls.size() == 1);
  CHECK(n.rdma.calls[0].from == "mlx5_0");
  CHECK(n.rdma.calls[0].to == "mlx5_1");
  CHECK(r.observed == "0→1 180000 Mb/s");
  CHECK(contains(r.detail, "0→2: no RoCE v2 IPv4 GID on ens2f0.200"));
  CHECK(contains(r.detail, "1→2: no RoCE v2 IPv4 GID on ens2f0.200"));
}

TEST_CASE("rails.cross_rdma_write: planned only with two rails or more") {
  Inventory one = test::managed_server({{1, 1}});
  Node n([](Recipe& rc) { rc.addressing.subnets = {"198.18.0.0/24"}; }, one);
  for (const auto& c : n.plan.checks) CHECK(c.id.kind != CheckKind::rails_cross_rdma_write);
  Node two([](Recipe&) {}, test::managed_server({{1, 1}, {1, 1}}));
  auto r = two.check("rails.cross_rdma_write");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "0→1 180000 Mb/s");
}

TEST_CASE("rail.N.gpudirect_write: the rail's GPU memory to itself on the rail's device, how the NIC took it") {
  Node n;
  const RailPlan& rail = n.rail(1);
  REQUIRE(rail.gpu_pcis.size() == 1);
  const std::string gpu = rail.gpu_pcis[0];
  auto r = n.check("rail.1.gpudirect_write");
  CAPTURE(text(r));
  CHECK(r.required);
  CHECK(r.expected == "1048576 bytes from GPU memory to GPU memory of " + gpu + ", verified");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == gpu + ": 1048576 bytes verified at 162000 Mb/s (dma-buf)");
  REQUIRE(n.rdma.gpu_calls.size() == 1);
  CHECK(n.rdma.gpu_calls[0].dev == "mlx5_1");
  CHECK(n.rdma.gpu_calls[0].pci == gpu);
  CHECK(n.rdma.gpu_calls[0].timeout_ms == n.recipe.selftest.check_timeout_ms);
  CHECK(n.rdma.calls.empty());  // the host-memory write is rail.N.rdma_write's

  // A test double of libcuda is named: its memory is host memory.
  n.rdma.stand_in = "railyard's test double of libcuda.so.1";
  n.rdma.registration = "nvidia-peermem";
  r = n.check("rail.1.gpudirect_write");
  CHECK(contains(r.observed, "(nvidia-peermem)"));
  CHECK(r.detail == "GPU memory from railyard's test double of libcuda.so.1 (host memory), not from a GPU");
}

TEST_CASE("rail.N.gpudirect_write: a failed registration fails; no CUDA is unsupported; off and best-effort") {
  Node n;
  const std::string gpu = n.rail(0).gpu_pcis.at(0);
  n.rdma.gpu_errors[gpu] = {EINVAL,
                            "mlx5_0: register GPU memory (dma-buf: ...; ibv_reg_mr on GPU memory needs "
                            "nvidia_peermem loaded): Bad address"};
  auto r = n.check("rail.0.gpudirect_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "failed");
  CHECK(contains(r.detail, gpu + ": mlx5_0: register GPU memory"));

  n.rdma.gpu_errors[gpu] = {EOPNOTSUPP,
                            "no CUDA driver library on the node (libcuda.so.1: cannot open shared object file)"};
  r = n.check("rail.0.gpudirect_write");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "no CUDA");

  Node slow([](Recipe& rc) { rc.selftest.rdma_min_mbps = 170000; });
  r = slow.check("rail.2.gpudirect_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.detail, "below the recipe's 170000 Mb/s"));

  Node best([](Recipe& rc) { rc.selftest.gpudirect = Requirement::best_effort; });
  best.rdma.gpu_errors[best.rail(0).gpu_pcis.at(0)] = {EIO, "RDMA WRITE completed with remote access error"};
  r = best.check("rail.0.gpudirect_write");
  CHECK_FALSE(r.required);
  CHECK(contains(r.expected, "(best-effort)"));
  CHECK(r.status == CheckStatus::warn);

  Node off([](Recipe& rc) { rc.selftest.gpudirect = Requirement::off; });
  for (const auto& c : off.plan.checks) CHECK(c.id.kind != CheckKind::rail_gpudirect_write);
  Node amd([](Recipe& rc) { rc.hardware.gpu_vendor = GpuVendor::amd; });
  for (const auto& c : amd.plan.checks) CHECK(c.id.kind != CheckKind::rail_gpudirect_write);
}

TEST_CASE("rail.N.gpudirect_write: verify on a node in service skips it: a job may hold the GPU") {
  Node n;
  Plan one = n.plan;
  one.checks.clear();
  for (const auto& c : n.plan.checks)
    if (c.id.name() == "rail.0.gpudirect_write") one.checks.push_back(c);
  VerifyContext ctx{one, n.now, n.kernel, n.rdma, n.clock, &n.lldp, nullptr, &n.nvml};
  ctx.gpu_workloads = false;
  auto results = verify(ctx);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == CheckStatus::skip);
  CHECK(results[0].detail == "only first boot writes GPU memory: on a node in service a job may hold the GPU");
  CHECK(n.rdma.gpu_calls.empty());
}
