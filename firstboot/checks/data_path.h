// The RDMA data path: an RDMA WRITE per rail (its device to itself, over the wire's
// loopback in the NIC) and between every pair of rails, bytes compared; and the same write
// from a GPU's memory to its memory (GPUDirect RDMA).
#pragma once

#include <utility>
#include <vector>

#include "objects/verify_context.h"

namespace railyard::checks {

void rdma_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void cross_rdma_write(const VerifyContext& ctx, CheckResult& r);
// The rounds cross_rdma_write tests the pairs of `rails` rails in: every pair (a < b) once,
// no rail twice in a round; n - 1 rounds for an even n, n for an odd one.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> rail_pair_rounds(std::size_t rails);
// GPUDirect RDMA: the rail's write from and to memory of each of the rail's GPUs.
void gpudirect_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard::checks
