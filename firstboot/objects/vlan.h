// A rail's 802.1Q VLAN device on its physical interface, over rtnetlink.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_vlans(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.vlan: the VLAN device with the planned id on the rail's interface.
void verify_vlan(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
