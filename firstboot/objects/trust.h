// DSCP trust: the qos/trust file of NVIDIA's driver, or the DSCP app entries where it has none.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_trust(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.trust: what the NIC classifies by, read back.
void verify_trust(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
