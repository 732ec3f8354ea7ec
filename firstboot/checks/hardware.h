// Checks of the hardware as rediscovered after apply, about no single kernel object: GPUs
// and their PCIe links, the rail NICs, their affinity, speed, RDMA ports and GIDs.
#pragma once

#include "objects/verify_context.h"

namespace railyard::checks {

void gpu_count(const VerifyContext& ctx, CheckResult& r);
void gpu_model(const VerifyContext& ctx, CheckResult& r);
// gpu.N.pcie_link, N indexing the plan's GPUs (by address: a GPU that fell off does not
// shift the others).
void gpu_pcie_link(const VerifyContext& ctx, int gpu, CheckResult& r);
void rails_count(const VerifyContext& ctx, CheckResult& r);
void rail_affinity(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rail_pcie_link(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rail_speed(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rdma_port(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void roce_v2_gid(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

// The RDMA device serving the rail now: the planned one, or a Soft-RoCE device apply
// created under another name, found by its netdev.
const RdmaDevice* rail_rdma_device(const Inventory& now, const RailPlan& rail);

}  // namespace railyard::checks
