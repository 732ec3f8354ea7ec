// The fleet's topology (core/topology.h) from its reports, as `railyard report topology`, the
// receiver's GET /api/v1/topology and the fleet page's fabric view read it: each node's newest
// passing report, and for a node that never passed its newest, so that a miscabled one is
// named as such.
#pragma once

#include <string>
#include <vector>

#include "outcome.h"
#include "report/fleet.h"
#include "topology.h"

namespace railyard {

Topology fleet_topology(const Fleet& fleet);

// The forms a scheduler reads the topology in.
struct TopologyFormat {
  std::string format = "slurm-tree";  // slurm-tree, slurm-block, json or k8s-labels
  std::string spine = "spine";        // slurm-tree: the switch above the units
  std::vector<int> block_sizes;       // slurm-block: BlockSizes, in nodes; none: left out
};
inline constexpr const char* kTopologyFormats = "slurm-tree, slurm-block, json or k8s-labels";

// `t` as `f` says; fails, saying why, on an unknown format or a name the format cannot carry
// (a switch or node name Slurm would not parse, a label value Kubernetes refuses).
Outcome<std::string> render_topology(const Topology& t, const TopologyFormat& f);

}  // namespace railyard
