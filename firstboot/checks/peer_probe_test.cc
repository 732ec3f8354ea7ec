// The peer checks (checks/peer_probe.cc): a rail's exchange with a real responder on loopback,
// the RDMA side in memory, the device's counters read from the fake host around it.
#include "checks/peer_probe.h"

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

// A node whose rail 0 probes `port` on loopback (the responder's rail 0), its NIC an mlx5 with
// its counters at 0; the other rails probe nothing.
struct PeerNode : Node {
  explicit PeerNode(std::uint16_t port, const std::function<void(Recipe&)>& tweak = {})
      : Node([&](Recipe& rc) {
          rc.probe.peers = {"198.18.0.100", "", ""};
          rc.probe.bytes = 4096;
          rc.probe.timeout_ms = 2000;
          if (tweak) tweak(rc);
        }) {
    plan.rails[0].address = "127.0.0.1/8";
    plan.rails[0].probe_peer = "127.0.0.1";
    plan.probe.port = port;
    nic(plan.rails[0].ifname).pci.driver = "mlx5_core";
    test::zero_mlx5_counters(host);
  }

  std::vector<CheckResult> peer_checks(checks::PeerProbes* peers) {
    Plan only = plan;
    std::erase_if(only.checks, [](const PlannedCheck& c) { return c.id.name().find(".peer_") == std::string::npos; });
    VerifyContext ctx{only, now, kernel, rdma, clock, &lldp};
    ctx.peers = peers;
    return verify(ctx);
  }
};

const CheckResult& named(const std::vector<CheckResult>& results, const std::string& name) {
  for (const auto& r : results)
    if (r.name() == name) return r;
  FAIL("no result " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("peer checks: only rails with a reference are probed, three checks each") {
  PeerNode n(1);
  std::vector<std::string> names;
  for (const auto& c : n.plan.checks)
    if (c.id.name().find(".peer_") != std::string::npos) names.push_back(c.id.name());
  CHECK(names == std::vector<std::string>{"rail.0.peer_write", "rail.0.peer_bandwidth", "rail.0.peer_latency"});
}

TEST_CASE("peer checks: the write verified with clean counters passes all three, with the figures") {
  Running rig;
  PeerNode n(rig.port(), [](Recipe& rc) { rc.probe.min_gbps = 10; });
  MemoryWriter w;
  w.slices = &rig.slices;
  checks::PeerProbes peers(memory_writers(w), 10ms);
  auto results = n.peer_checks(&peers);
  CAPTURE(listing(results));
  const auto& write = named(results, "rail.0.peer_write");
  CHECK(write.status == CheckStatus::pass);
  CHECK(write.observed == "4096 bytes to 127.0.0.1:" + std::to_string(rig.port()) + " verified, counters clean");
  CHECK(contains(write.detail, "mlx5 counters"));
  const auto& bw = named(results, "rail.0.peer_bandwidth");
  CHECK(bw.status == CheckStatus::pass);
  CHECK(bw.observed == "12.50 Gb/s to 127.0.0.1:" + std::to_string(rig.port()));
  CHECK(bw.expected == ">= 10 Gb/s");
  const auto& lat = named(results, "rail.0.peer_latency");
  CHECK(lat.status == CheckStatus::pass);
  CHECK(contains(lat.observed, "8.0 µs"));
  rig.finish();
  CHECK(rig.responder->counts().verified == 1);  // one exchange for the three checks
  auto report = checks::peer_report(peers);
  REQUIRE(report.size() == 1);
  CHECK(report[0]["rail"] == 0);
  CHECK(report[0]["completed"] == true);
  CHECK(report[0]["gbps"] == 12.5);
  CHECK(report[0]["latency_us"] == 8.0);
  CHECK(report[0]["violations"].empty());
  CHECK(report[0]["counters"] == "mlx5 counters");
}

TEST_CASE("peer checks: a sequence error on the lossless rail fails the write with the counter and its delta") {
  Running rig;
  PeerNode n(rig.port(), [](Recipe& rc) { rc.probe.min_gbps = 10; });
  MemoryWriter w;
  w.slices = &rig.slices;
  w.host = &n.host;
  w.bump = "packet_seq_err";
  checks::PeerProbes peers(memory_writers(w), 10ms);
  auto results = n.peer_checks(&peers);
  CAPTURE(listing(results));
  const auto& write = named(results, "rail.0.peer_write");
  CHECK(write.status == CheckStatus::fail);
  CHECK(contains(write.observed, "packet_seq_err +3"));
  // The bytes arrived: the figures are still measured and judged on their own.
  CHECK(named(results, "rail.0.peer_bandwidth").status == CheckStatus::pass);
}

TEST_CASE("peer checks: congestion notifications are reported and never fail") {
  Running rig;
  PeerNode n(rig.port());
  MemoryWriter w;
  w.slices = &rig.slices;
  w.host = &n.host;
  w.bump = "np_cnp_sent";
  checks::PeerProbes peers(memory_writers(w), 10ms);
  auto results = n.peer_checks(&peers);
  const auto& write = named(results, "rail.0.peer_write");
  CHECK(write.status == CheckStatus::pass);
  CHECK(contains(write.detail, "np_cnp_sent +3"));
}

TEST_CASE("peer checks: below min_gbps or above max_latency_us fails that figure alone") {
  Running rig;
  PeerNode n(rig.port(), [](Recipe& rc) {
    rc.probe.min_gbps = 40;
    rc.probe.max_latency_us = 5;
  });
  MemoryWriter w;
  w.slices = &rig.slices;
  checks::PeerProbes peers(memory_writers(w), 10ms);
  auto results = n.peer_checks(&peers);
  CAPTURE(listing(results));
  CHECK(named(results, "rail.0.peer_write").status == CheckStatus::pass);
  const auto& bw = named(results, "rail.0.peer_bandwidth");
  CHECK(bw.status == CheckStatus::fail);
  CHECK(contains(bw.detail, "below 40.00 Gb/s"));
  const auto& lat = named(results, "rail.0.peer_latency");
  CHECK(lat.status == CheckStatus::fail);
  CHECK(contains(lat.detail, "above 5.0 µs"));
}

TEST_CASE("peer checks: a reference that never answers fails the write with what was tried") {
  Running rig;
  std::uint16_t closed = rig.port();
  rig.finish();
  rig.responder.reset();  // nothing listens on the port any more
  PeerNode n(closed, [](Recipe& rc) { rc.probe.timeout_ms = 300; });
  MemoryWriter w;
  w.slices = &rig.slices;
  checks::PeerProbes peers(memory_writers(w), 50ms);
  auto results = n.peer_checks(&peers);
  CAPTURE(listing(results));
  const auto& write = named(results, "rail.0.peer_write");
  CHECK(write.status == CheckStatus::fail);
  CHECK(write.observed == "no exchange with 127.0.0.1:" + std::to_string(closed));
  CHECK(contains(write.detail, "attempt 1: "));
  CHECK(contains(write.detail, "attempt 2: "));  // refused connections are tried again until the deadline
  const auto& bw = named(results, "rail.0.peer_bandwidth");
  CHECK(bw.status == CheckStatus::fail);
  CHECK(bw.observed == "not measured");
  CHECK(contains(bw.detail, "rail.0.peer_write"));
}

TEST_CASE("peer checks: a responder's refusal fails the write with its reason, not retried") {
  Running rig("10.0.0.0/8");  // loopback is outside the rail's network
  PeerNode n(rig.port());
  MemoryWriter w;
  w.slices = &rig.slices;
  checks::PeerProbes peers(memory_writers(w), 10ms);
  auto results = n.peer_checks(&peers);
  CAPTURE(listing(results));
  const auto& write = named(results, "rail.0.peer_write");
  CHECK(write.status == CheckStatus::fail);
  CHECK(contains(write.observed, "refused by 127.0.0.1"));
  CHECK(contains(write.detail, "attempt 1: refused"));
  CHECK(!contains(write.detail, "attempt 2"));
}

TEST_CASE("peer checks: without a probe run (verify on a node in service) they skip") {
  PeerNode n(1);
  for (const auto& r : n.peer_checks(nullptr)) {
    CHECK(r.status == CheckStatus::skip);
    CHECK(r.observed == "not probed");
  }
}

TEST_CASE("peer checks: the default bounds: 80% of the link and 50 µs on hardware, none on Soft-RoCE") {
  ProbeSpec p;
  CHECK(checks::peer_min_gbps(p, false, 400000) == doctest::Approx(320));
  CHECK(!checks::peer_min_gbps(p, true, 400000));
  CHECK(!checks::peer_min_gbps(p, false, -1));  // speed unknown: nothing to derive a bound from
  CHECK(checks::peer_max_latency_us(p, false) == doctest::Approx(50));
  CHECK(!checks::peer_max_latency_us(p, true));
  p.min_gbps = 0.02;
  p.max_latency_us = 20000;
  CHECK(checks::peer_min_gbps(p, true, -1) == doctest::Approx(0.02));
  CHECK(checks::peer_max_latency_us(p, true) == doctest::Approx(20000));
}
