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
// The node's own objects, modules to tenant isolation; nothing when the plan has problems or
// would touch the management interface (one failed "plan" change says which).
std::vector<Change> apply_node(const Plan& plan, Kernel& kernel);

// The storage that crosses the fabric (NVMe-oF), appended to `changes`: after apply_node, and on
// routed rails after the BGP sessions are up and the rails' tables filled (stages/run.cc).
void apply_storage(const Plan& plan, Kernel& kernel, std::vector<Change>& changes);

// Both, one after the other: a preview, and what tests apply.
std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel);

}  // namespace railyard
