// The agent stage's join gate (core/join_gate.h), on its own for tests.
#pragma once

#include "stage.h"

namespace railyard {

// Every join unit must be in the image by now (a package, a driver bundle or an overlay
// ships it: the stages before the agent's) and gets the gate's drop-in, so that it starts
// only after the agent's pass, whether or not its package enabled it. Fails naming the
// recipe's line for a unit the image lacks or masks.
Status gate_join_units(StageContext& ctx);

// With [join.slurm]: slurmd's configless drop-in (before the gate's) and munge's key
// handed to munge at boot (core/slurm.h); fails naming the recipe's line when the image
// lacks scontrol or munged.
Status slurm_node_files(StageContext& ctx);

}  // namespace railyard
