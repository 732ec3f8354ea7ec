// PFC on a rail's lossless priority: struct ieee_pfc over DCB netlink, on the physical interface.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_pfc(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.pfc: pfc_en read back equals the planned bitmap.
void verify_pfc(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
