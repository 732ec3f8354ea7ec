// Verify: discover again and compare what the node is with what the plan meant. Every
// check the plan lists gets a result: pass, fail, skip, warn or unsupported, with the
// expected and observed values. Verify reads the plan and the node, never the recipe:
// every expectation and every bound (selftest) is in the plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "inventory.h"
#include "kernel/bgp.h"
#include "kernel/kernel.h"
#include "kernel/lldp_neighbors.h"
#include "objects/verify_context.h"
#include "plan.h"
#include "report.h"

namespace railyard {

std::vector<CheckResult> verify(const VerifyContext& ctx);

}  // namespace railyard
