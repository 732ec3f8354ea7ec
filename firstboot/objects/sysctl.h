// A rail's sysctls (ARP behaviour, rp_filter, accept_local) under /proc/sys.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"

namespace railyard {

void apply_sysctls(const Plan&, Kernel&, std::vector<Change>&);

}  // namespace railyard
