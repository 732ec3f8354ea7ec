// The sweep worker's writes (checks/sweep_worker.cc): a plan's slots run against a real
// responder on loopback, the RDMA side in memory, the device's counters read from the fake
// host around each round, and the waits recorded instead of slept.
#include "checks/sweep_worker.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "support/memory_writer.h"
#include "support/probe_rig.h"
#include "support/verify_node.h"

using namespace std::chrono_literals;
using railyard::test::memory_writers;
using railyard::test::MemoryWriter;
using railyard::test::Running;

namespace {

// n1, whose rail 0 writes from 127.0.0.1, its NIC an mlx5 with its counters at 0.
struct WorkerNode : Node {
  WorkerNode()
      : Node([](Recipe& rc) {
          rc.probe.bytes = 4096;
          rc.probe.timeout_ms = 2000;
        }) {
    plan.rails[0].address = "127.0.0.1/8";
    nic(plan.rails[0].ifname).pci.driver = "mlx5_core";
    test::zero_mlx5_counters(host);
  }
  VerifyContext ctx() { return VerifyContext{plan, now, kernel, rdma, clock, &lldp}; }
};

// Round 0: n1 (a) with n2; round 1: n0 (a) with n1 (b); round 2: n1 not in it.
SweepPlan two_round_plan(std::uint16_t port) {
  SweepPlan p;
  p.seconds_per_test = 0.5;
  p.port = port;
  p.rounds = {{{"n1", "n2", 0}}, {{"n0", "n1", 0}}, {{"n0", "n2", 0}}};
  p.addresses = {{"n0", {"127.0.0.1"}}, {"n1", {"127.0.0.1"}}, {"n2", {"127.0.0.1"}}};
  return p;
}

struct Waits {
  std::vector<double> offsets;  // seconds after t0
  std::chrono::system_clock::time_point t0 = std::chrono::system_clock::now();
  checks::SweepWait fn() {
    return [this](std::chrono::system_clock::time_point t) {
      offsets.push_back(std::chrono::duration<double>(t - t0).count());
    };
  }
};

}  // namespace

TEST_CASE("sweep worker: each round's write at its half, counters around the round, one result per write") {
  Running rig;
  WorkerNode n;
  MemoryWriter w;
  w.figures = {42.0, 6.0};
  w.slices = &rig.slices;
  SweepPlan plan = two_round_plan(rig.port());
  Waits waits;
  checks::SweepWorker worker{plan, "n1", waits.t0, 10ms};
  auto ctx = n.ctx();
  auto results = checks::run_sweep_writes(ctx, worker, memory_writers(w), waits.fn());
  REQUIRE(results.size() == 2);
  CHECK(results[0].test == SweepTest{"n1", "n2", 0});
  CHECK(results[0].from == "n1");
  CHECK(results[0].ok);
  CHECK(results[0].gbps == 42.0);
  CHECK(results[0].error.empty());
  CHECK(results[1].test == SweepTest{"n0", "n1", 0});
  CHECK(results[1].from == "n1");
  CHECK(results[1].ok);
  // Round 0: its start (counters), n1's write as a at once, the round's end (counters);
  // round 1: its start, n1's write as b half a round in, its end. Round 2 is not n1's.
  std::vector<double> expected{0, 0, 1.0, 1.0, 1.5, 2.0};
  REQUIRE(waits.offsets.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    CHECK(waits.offsets[i] == doctest::Approx(expected[i]).epsilon(1e-6));
  rig.finish();
  CHECK(rig.responder->counts().verified == 2);
  // The results read back as the analysis reads them.
  for (const auto& r : results) {
    std::string why;
    auto back = sweep_result_from_json(nlohmann::json::parse(to_json(r).dump()), why);
    CAPTURE(why);
    REQUIRE(back);
    CHECK(back->from == "n1");
  }
}

TEST_CASE("sweep worker: counters that moved are the writer's side of the test, a's or b's") {
  Running rig;
  WorkerNode n;
  MemoryWriter w;
  w.figures = {42.0, 6.0};
  w.slices = &rig.slices;
  w.host = &n.host;
  w.bump = "packet_seq_err";
  w.bump_to = "5";
  SweepPlan plan = two_round_plan(rig.port());
  Waits waits;
  auto ctx = n.ctx();
  auto results = checks::run_sweep_writes(ctx, {plan, "n1", waits.t0, 10ms}, memory_writers(w), waits.fn());
  REQUIRE(results.size() == 2);
  // The data arrived; the lossless counter's move is the evidence, on n1's side of each test.
  CHECK(results[0].ok);
  CHECK(results[0].a_counters == "packet_seq_err +5");
  CHECK(results[0].b_counters.empty());
  CHECK(results[1].a_counters.empty());
  // The counter stands at 5 after round 0: round 1 sees it move again only if it did.
  CHECK(results[1].b_counters.empty());
  CHECK(sweep_test_failed(results[0], 0));
}

TEST_CASE("sweep worker: what arrived differs, a peer without an address, a rail the node lacks") {
  Running rig;
  WorkerNode n;
  MemoryWriter w;
  w.figures = {42.0, 6.0};
  w.slices = &rig.slices;
  w.corrupt = true;
  SweepPlan plan = two_round_plan(rig.port());
  plan.rounds = {{{"n1", "n2", 0}}, {{"n1", "n3", 0}}, {{"n0", "n1", 9}}};
  Waits waits;
  auto ctx = n.ctx();
  auto results = checks::run_sweep_writes(ctx, {plan, "n1", waits.t0, 10ms}, memory_writers(w), waits.fn());
  REQUIRE(results.size() == 3);
  CHECK_FALSE(results[0].ok);
  CHECK(results[0].error == "n2's memory did not hold what was written");
  CHECK_FALSE(results[1].ok);
  CHECK(results[1].error == "the plan gives n3 no address on rail 0");
  CHECK_FALSE(results[2].ok);
  CHECK(results[2].error == "n1 has no rail 9");
  CHECK(results[2].gbps == 0);
}

TEST_CASE("sweep worker: a peer whose responder never answers fails the write within its half round") {
  WorkerNode n;
  MemoryWriter w;
  w.figures = {42.0, 6.0};
  test::MemorySlices slices;
  w.slices = &slices;
  // A port with nothing listening on loopback: refused at once, retried until the half ends.
  std::uint16_t port = 0;
  {
    Running closed;
    port = closed.port();
  }
  SweepPlan plan = two_round_plan(port);
  plan.seconds_per_test = 0.3;
  plan.rounds = {{{"n1", "n2", 0}}};
  Waits waits;
  auto ctx = n.ctx();
  auto start = std::chrono::steady_clock::now();
  auto results = checks::run_sweep_writes(ctx, {plan, "n1", waits.t0, 20ms}, memory_writers(w), waits.fn());
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].ok);
  CAPTURE(results[0].error);
  CHECK_FALSE(results[0].error.empty());
  CHECK(results[0].error.find('"') == std::string::npos);
  CHECK(took < 3s);
}
