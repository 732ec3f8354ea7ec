// Applying a plan: the kernel objects (objects/) in dependency order, each reading the
// current state, changing only the difference and saying what it did. A second run
// changes nothing.
#pragma once

#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"

namespace railyard {

// Every applier has this shape. `out` receives one Change per object considered.
using Applier = void (*)(const Plan&, Kernel&, std::vector<Change>&);

// Runs every applier in dependency order. Refuses (one failed Change, nothing else done) a
// plan that would touch the management interface or that has problems.
std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel);

}  // namespace railyard
