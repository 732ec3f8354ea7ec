// A rail's links: the physical interface and its VLAN device up at the rail MTU.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_links(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.mtu: the address-carrying device (the VLAN, else the interface) at the planned MTU.
void verify_mtu(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
// rail.N.link: the rail NIC's operational state, as rediscovered after apply.
void verify_link(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

}  // namespace railyard
