// The RDMA data path: an RDMA WRITE per rail (its device to itself, over the wire's
// loopback in the NIC) and between every pair of rails, bytes compared; and the same write
// from a GPU's memory to its memory (GPUDirect RDMA).
#pragma once

#include "verify/verify.h"

namespace railyard::checks {

void rdma_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void cross_rdma_write(const VerifyContext& ctx, CheckResult& r);
// GPUDirect RDMA: the rail's write from and to memory of each of the rail's GPUs.
void gpudirect_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard::checks
