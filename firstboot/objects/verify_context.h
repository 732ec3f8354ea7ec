// What every check's evaluator is given: the plan (every expectation and bound), the node as
// discovered again, the kernel and the data path to read it through, and what the run's
// earlier stages left (BGP sessions, NVML's reading, NCCL's run, the first pause samples).
#pragma once

#include "clock.h"
#include "inventory.h"
#include "kernel/kernel.h"
#include "kernel/lldp_neighbors.h"
#include "kernel/rdma_data_path.h"
#include "plan.h"
#include "report.h"

namespace railyard {

struct BgpBringUp;    // objects/routing.h
struct PauseSamples;  // objects/storm.h
struct NvmlReading;   // gpu/nvml.h
struct NcclRun;       // gpu/nccl.h
namespace checks {
class PeerProbes;  // checks/peer_probe.h
}

struct VerifyContext {
  const Plan& plan;
  const Inventory& now;  // discovered again after apply
  Kernel& kernel;
  RdmaDataPath& rdma;
  Clock& clock = real_clock();          // the pause counters' sampling interval
  LldpNeighbors* lldp = nullptr;        // the rails' neighbours; none when nothing listens (LLDP checks skip)
  const BgpBringUp* bgp = nullptr;      // routed rails: bgpd's sessions as the wait left them
  const NvmlReading* nvml = nullptr;    // the GPUs as NVML saw them; none: the NVML checks are unsupported
  const NcclRun* nccl = nullptr;        // all_reduce_perf's run; none: nccl.all_reduce skips
  checks::PeerProbes* peers = nullptr;  // the rails' exchanges with their references; none: the peer checks skip
  // First boot puts work on the GPUs (GPUDirect writes, all_reduce_perf); `verify` on a node
  // in service does not: a job may hold the GPUs (exclusive compute mode), and a health
  // check must not compete with it or fail because of it.
  bool gpu_workloads = true;
  // The pause counters' first samples, taken for every rail at once as verify starts, so
  // that the rails share one sampling interval (verify() sets it; none: each check samples
  // twice itself, an interval apart).
  const PauseSamples* pause_first = nullptr;
};

}  // namespace railyard
