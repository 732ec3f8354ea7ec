// A rail's routing: per-rail tables and source rules on a shared subnet; never a default route.
#pragma once

#include <string>
#include <vector>

#include "apply/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "verify/verify.h"

namespace railyard {

void apply_routing(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.no_default_route: no default route in the main table via the rail or its netdev.
void verify_no_default_route(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
