// The fleet's topology (core/topology.h) from its reports, as `railyard report topology` and
// the fleet page's fabric view both read it: each node's newest passing report, and for a
// node that never passed its newest, so that a miscabled one is named as such.
#pragma once

#include "report/fleet.h"
#include "topology.h"

namespace railyard {

Topology fleet_topology(const Fleet& fleet);

}  // namespace railyard
