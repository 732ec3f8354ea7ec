// The switch side of the fabric, from the same recipe and inventory the hosts are configured
// from: what every leaf port facing a rail must hold (`railyard fabric leaf-config`). Pure.
// In a rail-optimised fabric rail i of every node reaches leaf i; a leaf is named by the LLDP
// system name its ports must advertise ([fabric.lldp] expect_system, or the nodes' own).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "node_inventory.h"
#include "recipe.h"

namespace railyard {

inline constexpr int kLeafConfigSchema = 1;

struct LeafPort {
  std::string port;  // the port ID the node expects to see; "" when the recipe and inventory say none
  int rail = 0;
  std::string node;            // the node's host name: the neighbour the port must see
  std::string node_address;    // the node's rail address; "" when the inventory has none
  std::int64_t remote_as = 0;  // routed rails: the node's AS (core/frr.h node_asn); 0 otherwise
  std::string vtep;            // routed rails with [tenant]: the node's VTEP, also accepted from it
};

struct LeafIntent {
  std::string name;  // the LLDP system name; "" when none is expected (then named rail-N)
  std::string file;  // "leaf-r0.json", or "rail-0.json" for an unnamed leaf
  std::vector<int> rails;
  std::vector<LeafPort> ports;  // by rail, then node, as in the inventory
};

struct LeafPlan {
  std::vector<LeafIntent> leaves;     // by first rail, then name
  std::vector<std::string> problems;  // two nodes on one port of a leaf, a name no file can carry
  bool ok() const { return problems.empty(); }
};

LeafPlan plan_leaves(const Recipe& recipe, const std::vector<NodeEntry>& nodes);

// One leaf's JSON (docs/leaf-config.schema.json): PFC priorities and watchdog, ECN on the
// RoCE queue, the DSCP → priority map, the CNP priority, VLANs, MTU and each port's
// expected neighbour; on routed rails its BGP (the leaf's AS and router ID, each port's
// peer AS and the one prefix it accepts).
nlohmann::ordered_json to_json(const LeafIntent& leaf, const Recipe& recipe);

}  // namespace railyard
