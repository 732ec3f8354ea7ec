// PFC storms: the storm prevention tunable, and the pause counters that show a storm.
#pragma once

#include <string>
#include <vector>

#include "apply/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "verify/verify.h"

namespace railyard {

void apply_storm(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.storm_prevention: the ethtool tunable as planned.
void verify_storm_prevention(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
// rail.N.pause_storm: the lossless priority's pause counters sampled twice, under the bound.
void verify_pause_storm(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
