// The node's part of a fleet sweep (core/sweep.h, docs/sweep.md): round by round, each of its
// rails writes into its peer's responder on that rail at the time the plan gives it, with the
// rail's lossless counters read around the whole round. Every node of the job runs the same
// plan from the same start, so the writes meet the peers' responders as scheduled: no NIC
// sends in two tests at once.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "checks/peer_probe.h"
#include "sweep.h"

namespace railyard::checks {

// The wait until a moment of the sweep (the job's start plus an offset). The agent sleeps on
// the wall clock, which every node of a cluster keeps in step (NTP, PTP); tests do not wait.
using SweepWait = std::function<void(std::chrono::system_clock::time_point)>;
SweepWait sleep_until_wall_clock();

struct SweepWorker {
  const SweepPlan& plan;
  std::string node;                            // this node's name in the plan
  std::chrono::system_clock::time_point t0;    // the sweep's start, the same on every node
  std::chrono::milliseconds retry_pause{250};  // after a busy or silent responder
};

// The node's writes of `w.plan`, one result per write ("from" this node): ok when the peer's
// slice held what was written, the write's bandwidth, and this node's side of the counters
// over the round that held the write (its own write and the peer's into it). A rail the node
// does not have, a peer with no address on the rail, or counters that moved fail that write,
// said in its error. The plan's rails are matched to the node's by index.
std::vector<SweepResult> run_sweep_writes(const VerifyContext& ctx, const SweepWorker& w, const WriterFactory& writers,
                                          const SweepWait& wait);

}  // namespace railyard::checks
