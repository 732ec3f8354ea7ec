// The operator's node inventory (nodes.toml): who each node is and its rail addresses.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "recipe.h"
#include "schema.h"
#include "source.h"

namespace railyard {

struct NodeEntry {
  std::string hostname;
  std::string mac;                 // management MAC, normalised lower case
  std::vector<std::string> rails;  // one address per rail, "a.b.c.d" or "a.b.c.d/nn"
  // This node's LLDP neighbours, overriding the recipe's [fabric.lldp] expectations
  // (templates with {rail}); "" keeps the recipe's.
  std::string lldp_system;
  std::string lldp_port;
  // The node's BGP AS number on routed rails ([routing] bgp-unnumbered); 0: the recipe's
  // routing.node_asn.
  std::int64_t asn = 0;
  // [tenant]: the node's VTEP (a /32 inside routing.fabric_prefixes) and its address on the
  // tenant network ("10.100.0.11/24"); "" without a tenant network.
  std::string vtep{};
  std::string tenant_address{};
  // [fabric.probe]: this node serves the other nodes' peer probes (railyard-firstboot
  // responder), and the references its own rails write to, one address per rail ("" for a
  // rail without one). railyard pxe fills probe_peers from the inventory's references
  // (assign_probe_peers) unless the inventory gives them.
  bool reference = false;
  std::vector<std::string> probe_peers{};
};

struct NodeInventory {
  int schema = 1;
  std::string recipe;  // path of the SKU's recipe, relative to the inventory
  std::vector<NodeEntry> nodes;
};

const schema::Schema<NodeInventory>& node_inventory_schema();

struct LoadedInventory {
  std::string path;
  NodeInventory inventory;
  schema::Positions positions;
  std::set<std::string> failed;  // keys whose values were rejected
  bool complete = true;          // false when some values were rejected (the rest is still checked)
};

// Duplicates and, given the SKU's recipe, rail counts and subnets are checked.
// Returns what could be read even when some values were rejected (see `complete`).
std::optional<LoadedInventory> load_node_inventory(const FileSource& files, const std::string& path,
                                                   const toml::table& table, Diagnostics& diags);
void validate_inventory(const LoadedInventory& inv, const Recipe* recipe, Diagnostics& diags);

// Each node without probe_peers of its own, and not a reference itself, gets one reference per
// rail from the nodes marked reference = true: node i of the inventory takes reference i mod
// N, so that a fleet booting at once spreads over its references. A rail whose reference has
// no address there gets "". Pure; the order of the nodes decides.
void assign_probe_peers(NodeInventory& inv);

// A node's own identity file (/etc/railyard/node.toml): the same fields as one [[node]],
// checked by the same rules (validate_inventory's), against `recipe` when given.
std::optional<NodeEntry> parse_node_identity(const FileSource& files, const std::string& path, const Recipe* recipe,
                                             Diagnostics& diags);

}  // namespace railyard
