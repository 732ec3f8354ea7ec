// A rail's DSCP → priority map: DCB application entries with the DSCP selector.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_dscp_app(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.dscp_map: RoCE's DSCP mapped to the lossless priority in the app table.
void verify_dscp_map(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
