// Verify: discover again and compare what the node is with what the plan meant. Every
// check the plan lists gets a result: pass, fail, skip, warn or unsupported, with the
// expected and observed values. Verify reads the plan and the node, never the recipe:
// every expectation and every bound (selftest) is in the plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "inventory.h"
#include "kernel/bgp.h"
#include "kernel/kernel.h"
#include "kernel/lldp_neighbors.h"
#include "plan.h"
#include "report.h"

namespace railyard {

// The RDMA data path is its own interface: libibverbs natively, fakes in tests.
class RdmaDataPath {
 public:
  virtual ~RdmaDataPath() = default;
  // RC queue pairs between (from, from_gid) and (to, to_gid), RDMA WRITE of `bytes`, read
  // back and compared. Returns the throughput in Mb/s, or why it failed. Called from several
  // threads at once (rails.cross_rdma_write tests pairs of disjoint devices together).
  virtual Outcome<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                                     std::size_t bytes, int timeout_ms) = 0;

  // GPUDirect RDMA: the same write from `dev` to itself whose source and destination are
  // memory of the GPU at `gpu_pci`, registered with the NIC as a dma-buf or through
  // nvidia-peermem. Bounded by `timeout_ms` for the GPU's set-up and again for the transfer.
  struct GpuWrite {
    double mbps = 0;
    std::string registration;             // how the NIC was given the GPU's memory: "dma-buf", "nvidia-peermem"
    std::optional<std::string> stand_in;  // a test double of libcuda says what it is
  };
  virtual Outcome<GpuWrite> gpu_write_test(const std::string& /*dev*/, int /*gid*/, const std::string& /*gpu_pci*/,
                                           std::size_t /*bytes*/, int /*timeout_ms*/) {
    return Outcome<GpuWrite>::fail(EOPNOTSUPP, "this data path cannot use GPU memory");
  }
};

struct BgpBringUp;    // objects/routing.h
struct PauseSamples;  // objects/storm.h
struct NvmlReading;   // gpu/nvml.h
struct NcclRun;       // gpu/nccl.h

struct VerifyContext {
  const Plan& plan;
  const Inventory& now;  // discovered again after apply
  Kernel& kernel;
  RdmaDataPath& rdma;
  Clock& clock = real_clock();        // the pause counters' sampling interval
  LldpNeighbors* lldp = nullptr;      // the rails' neighbours; none when nothing listens (LLDP checks skip)
  const BgpBringUp* bgp = nullptr;    // routed rails: bgpd's sessions as the wait left them
  const NvmlReading* nvml = nullptr;  // the GPUs as NVML saw them; none: the NVML checks are unsupported
  const NcclRun* nccl = nullptr;      // all_reduce_perf's run; none: nccl.all_reduce skips
  // First boot puts work on the GPUs (GPUDirect writes, all_reduce_perf); `verify` on a node
  // in service does not: a job may hold the GPUs (exclusive compute mode), and a health
  // check must not compete with it or fail because of it.
  bool gpu_workloads = true;
  // The pause counters' first samples, taken for every rail at once as verify starts, so
  // that the rails share one sampling interval (verify() sets it; none: each check samples
  // twice itself, an interval apart).
  const PauseSamples* pause_first = nullptr;
};

std::vector<CheckResult> verify(const VerifyContext& ctx);

}  // namespace railyard
