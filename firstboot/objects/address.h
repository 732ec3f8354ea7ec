// A rail's address on its netdev, over rtnetlink.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_addresses(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.address: the planned address on the rail's netdev.
void verify_address(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
