// The kernel modules the plan needs, loaded through libkmod in the plan's order.
#pragma once

#include <string>
#include <vector>

#include "apply/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "verify/verify.h"

namespace railyard {

void apply_modules(const Plan&, Kernel&, std::vector<Change>&);

// gpudirect.peermem: nvidia_peermem loaded.
void verify_peermem(const VerifyContext& ctx, CheckResult& r);

}  // namespace railyard
