// The GPUs' health as NVML reports it (gpu/nvml.h): identity, persistence mode, ECC, row
// remapping, XIDs since boot, throttling, temperature, PCIe link, NVLinks, and NVML's view of
// each rail GPU's place against railyard's affinity. Pure functions of the reading.
#pragma once

#include "objects/verify_context.h"

namespace railyard::checks {

void gpu_nvml(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_persistence(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_ecc(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_row_remap(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_xid(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_throttle(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_temperature(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_nvml_pcie(const VerifyContext& ctx, int gpu, CheckResult& r);
void gpu_nvlink(const VerifyContext& ctx, int gpu, CheckResult& r);
// A disagreement warns, naming both answers: railyard pairs GPUs and NICs from sysfs, and
// NVML, which knows the board, is a second opinion.
void rail_gpu_topology(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

// nccl-tests' all_reduce_perf across the node's GPUs (gpu/nccl.h): its bus bandwidth against
// the recipe's, and no wrong result. Skips where the image lacks it or this run did not run it.
void nccl_all_reduce(const VerifyContext& ctx, CheckResult& r);

// The checks whose answer comes from NVML (a test double of it says so on each).
bool reads_nvml(CheckKind k);
// Whether the plan has checks that need NVML or the kernel log's XIDs read.
bool plans_gpu_health(const Plan& plan);
// Whether the plan has nccl.all_reduce: first boot then runs all_reduce_perf.
bool plans_nccl(const Plan& plan);

}  // namespace railyard::checks
