// RDMA-CM's default ToS and RoCE mode per RDMA device, through configfs.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_roce_tos(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.roce_tos: the device's default ToS as planned.
void verify_roce_tos(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
