// The tenant network ([tenant]): the node's VTEP as a /32 on the loopback (bgpd announces
// it on every rail), a VXLAN device from it with the tenant address, and its static flood
// list. tenant.vxlan, tenant.vtep and tenant.isolation check what the kernel holds and what
// answers.
#pragma once

#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_tenant(const Plan&, Kernel&, std::vector<Change>&);

void verify_tenant_vxlan(const VerifyContext& ctx, CheckResult& r);
void verify_tenant_vtep(const VerifyContext& ctx, CheckResult& r);
void verify_tenant_isolation(const VerifyContext& ctx, CheckResult& r);

}  // namespace railyard
