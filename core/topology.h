// The fabric as the nodes see it: scalable units from what each node's rails reach over LLDP,
// and the forms a scheduler reads them in. A scalable unit is the rail-optimised design's
// building block: every node of a unit reaches, on rail i, the same leaf i. Nodes whose
// rails say otherwise (a cable in another unit's leaf, two rails crossed, a rail with no
// neighbour, a leaf port two nodes claim) are named and left out, never placed wrongly.
// Pure: the report reading and the files are the host's (builder/report/topology_*).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railyard {

// What one rail reaches: the leaf's LLDP system name (its chassis ID where it sends none)
// and the port ID it gives for the node's cable.
struct RailNeighbor {
  std::string leaf;
  std::string port;
};

// One node as a report describes its rails (index: the rail): its newest passing report, or,
// for a node that never passed, its newest (`passed` false).
struct NodeFabric {
  std::string node;
  std::vector<std::optional<RailNeighbor>> rails;
  bool passed = true;
};

struct ScalableUnit {
  std::string name;                 // "su-" and its rail 0 leaf: stable while that leaf is
  std::vector<std::string> leaves;  // one per rail
  std::vector<std::string> nodes;   // in natural order (node2 before node10)
};

// A unit's name: "su-" and its rail 0 leaf, which stays while that leaf does; the agent's
// NFD labels name the unit its own rails reach the same way.
std::string unit_name(const std::vector<std::string>& leaves);

// A node left out of the topology, and why.
struct LeftOut {
  std::string node;
  std::string why;   // a sentence an operator acts on
  int rail = -1;     // the rail that put it out (-1: the node as a whole)
  std::string leaf;  // what that rail reaches, when it reaches anything
  std::string port;
  std::string likely_unit;  // the unit most of its rails reach, "" when none does
};

struct Topology {
  std::vector<ScalableUnit> units;  // by name
  std::vector<LeftOut> left_out;    // by node
};

// The units of `nodes`. Only nodes that passed make units. A leaf belongs to one unit: the
// set of leaves most nodes reach (ties broken by the leaves' names) makes the first unit, and
// a node that reaches one of its leaves on another rail, or together with leaves of no unit
// or another unit, is miscabled. A node that never passed is left out: as miscabled when its
// rails say so (the likeliest reason it failed), else as not passing.
// Deterministic: the same nodes in any order give the same topology.
Topology group_units(const std::vector<NodeFabric>& nodes);

// Host names as Slurm's hostlist expressions write them: lab-node01, lab-node02, lab-node03
// and gpu7 → "gpu7,lab-node[01-03]"; node9, node10, node11 → "node[9-11]". Zero padding is
// kept (node01 and node1 are different names); a name that does not end in digits stands
// alone. Sorted naturally, duplicates dropped.
std::string hostlist(std::vector<std::string> names);

// A hostlist expression's names: "gpu[001-003,007],login" → gpu001, gpu002, gpu003, gpu007,
// login. One bracket per name, ranges ascending, the width of a range's first number kept.
// nullopt, with `why`, for what Slurm would not read, or more than `limit` names.
std::optional<std::vector<std::string>> expand_hostlist(const std::string& expr, std::string& why,
                                                        std::size_t limit = 1 << 20);

// The natural order of host names: the digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

// topology.conf for topology/tree: a switch per unit with its nodes, the units under
// `spine`.
std::string render_slurm_tree(const Topology& t, const std::string& spine);
// topology.conf for topology/block (Slurm 23.11 and later): a block per unit, and
// BlockSizes when `block_sizes` names any.
std::string render_slurm_block(const Topology& t, const std::vector<int>& block_sizes);
// The JSON contract (docs/topology.schema.json): units and left_out.
nlohmann::ordered_json to_json(const Topology& t);

// A Kubernetes label value: at most 63 characters of [A-Za-z0-9._-], beginning and ending
// with a letter or digit; nullopt when `v` is one, else why not.
std::optional<std::string> check_k8s_label_value(const std::string& v);
inline constexpr const char* kTopologyLabelPrefix = "railyard.io/";
// The labels of a placed node: railyard.io/unit and railyard.io/rail<i>-leaf.
std::vector<std::pair<std::string, std::string>> topology_labels(const ScalableUnit& unit);
// `kubectl label node NODE --overwrite KEY=VALUE ...`, a line per placed node. Fails (nullopt
// and `why`) when a unit's name or a leaf's is no label value.
std::optional<std::string> render_k8s_labels(const Topology& t, std::string& why);

}  // namespace railyard
