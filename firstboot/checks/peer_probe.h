// The fabric between nodes, as the self-test proves it: each rail RDMA-writes across its leaf
// to its reference's responder (probe/client.h), with the RDMA device's counters read before
// and after. One exchange per rail; rail.N.peer_write, peer_bandwidth and peer_latency each
// read what it found.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "objects/verify_context.h"
#include "checks/counter_sample.h"
#include "net.h"
#include "probe/client.h"
#include "rdma_counters.h"

namespace railyard::checks {

// What one rail's exchange with its reference found.
struct PeerRun {
  std::string reference;                // "198.18.0.100:18515"
  std::vector<std::string> tried;       // each attempt that did not complete, and why
  std::optional<std::string> failed;    // no exchange completed: the last reason (or why none was tried)
  std::optional<ProbeRefusal> refused;  // the responder's last word, when it said no
  bool match = false;
  ProbeTransfer transfer;
  std::optional<CounterVerdict> counters;  // none when they could not be read
  std::string counters_note;               // why not, or which layout judged them
  bool completed() const { return !failed && !refused; }
};

// The node's RDMA side of one attempt (ibverbs in the agent, a fake in tests).
using WriterFactory =
    std::function<std::unique_ptr<ProbeWriter>(const std::string& rdma_device, int gid_index, int path_mtu,
                                               std::chrono::milliseconds timeout, std::uint64_t seed)>;

// libibverbs's (probe/ibverbs_writer.h): what the agent probes with.
WriterFactory ibverbs_writers();

// A rail's end of a probe: the address its writes leave from, its RDMA device and RoCE v2 GID,
// and where its counters are read. `failed` says why the rail cannot probe ("" when it can).
struct RailEnd {
  Ipv4 local;
  const RdmaDevice* dev = nullptr;
  int gid = -1;
  const CounterLayout* layout = nullptr;  // none: the NIC's driver has no layout, counters not judged
  std::string netdev;                     // whose ethtool statistics: the rail's physical port
  std::string failed;
};
RailEnd rail_end(const VerifyContext& ctx, const RailPlan& rail);

// The rail's counters now (checks/counter_sample.h).
Outcome<CounterSample> sample_rail(const VerifyContext& ctx, const RailPlan& rail, const RailEnd& end);

// The rail's writes into `target` until one exchange completes or `deadline` passes: a busy
// responder, or one not (yet) answering, is tried again after `retry_pause`, doubled each time
// up to 2 s. What happened goes into `out` (match, transfer, tried, failed, refused).
// `before_attempt`, when given, runs just before each attempt (the first boot's counters are
// read there, so that they span the exchange that completed, not the retries' waits).
void write_until(const WriterFactory& writers, const RailEnd& end, const RailPlan& rail, ProbeTarget target,
                 std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds retry_pause, PeerRun& out,
                 const std::function<void()>& before_attempt = {});

// The counters around an exchange judged into `out` (counters, counters_note).
void judge_rail(const RailEnd& end, const RailPlan& rail, const Outcome<CounterSample>& before,
                const Outcome<CounterSample>& after, PeerRun& out);

class PeerProbes {
 public:
  // `retry_pause`: the wait after a busy responder or a refused connection before trying
  // again, doubled each time up to 2 s (tests shorten it).
  PeerProbes(WriterFactory writers, std::chrono::milliseconds retry_pause = std::chrono::milliseconds(250));
  // Every rail's run so far, by rail index.
  const std::map<int, PeerRun>& runs() const { return runs_; }
  // The rail's exchange. The first call runs every rail's at once (threads of their own),
  // each sampling its own device's counters (the kernel interfaces must allow that); the
  // exchanges themselves take turns, each rail's timeout counted from its turn.
  const PeerRun& run(const VerifyContext& ctx, const RailPlan& rail);

 private:
  PeerRun exchange(const VerifyContext& ctx, const RailPlan& rail);
  WriterFactory writers_;
  std::chrono::milliseconds retry_pause_;
  std::map<int, PeerRun> runs_;
  std::mutex transfer_lock_;  // the rails' exchanges, one at a time, each timed from its turn
};

// The report's `peers`: each rail's run, its figures and counters; null when none ran.
nlohmann::ordered_json peer_report(const PeerProbes& probes);

// The evaluators; without ctx.peers, each skips.
void peer_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void peer_bandwidth(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void peer_latency(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

// The bounds the recipe's 0s stand for: 80% of the link's speed and 50 µs on hardware NICs,
// none on Soft-RoCE (a software device's speed says nothing of its link). None: not bounded.
std::optional<double> peer_min_gbps(const ProbeSpec& probe, bool soft_roce, int link_mbps);
std::optional<double> peer_max_latency_us(const ProbeSpec& probe, bool soft_roce);

}  // namespace railyard::checks
