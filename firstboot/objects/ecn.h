// ECN (DCQCN) on the RoCE priority, as notification and reaction point (NVIDIA's driver).
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_ecn(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.ecn: both roles enabled on the planned priority.
void verify_ecn(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
