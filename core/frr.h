// FRR's configuration for routed rails ([routing] bgp-unnumbered), on the node and on its
// leaves: the same intent, both ends. Pure; every value in it was validated before (host
// names, interface names, addresses, prefixes, AS numbers), so nothing needs quoting.
//
// A node announces its rail /32s and nothing else, accepts only the fabric's prefixes (never
// a default route), and peers once per rail over the rail's IPv6 link-local address with
// `remote-as external`: the leaf's AS is the leaf's business. A leaf peers with each node
// port expecting that node's AS (a node with another AS is refused at OPEN), accepts from
// each port only that node's rail address, and sends the fabric's prefixes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "leaf_config.h"
#include "plan.h"

namespace railyard {

inline constexpr const char* kFrrConfigPath = "/etc/frr/frr.conf";
inline constexpr const char* kFrrDaemonsPath = "/etc/frr/daemons";

// Route maps and prefix lists railyard names, on the node and on the leaf.
inline constexpr const char* kFrrFabricList = "RAILYARD-FABRIC";

// The node's frr.conf and daemons (bgpd on, every other routing daemon off), from a plan with
// routed rails; none for a plan without.
std::vector<PlannedFile> frr_node_files(const Plan& plan);

// One leaf's frr.conf for `railyard fabric leaf-config`: "" when the recipe gives the leaves no
// AS (routing.leaf_asn = 0) or its rails are not routed.
std::string frr_leaf_config(const LeafIntent& leaf, const Recipe& recipe);

// The leaf's AS and router ID: rail r's leaf is leaf_asn + r; its router ID is its AS as a
// dotted quad, unique as the AS is, so that a leaf needs no address of its own to peer.
std::int64_t leaf_asn(const LeafIntent& leaf, const Recipe& recipe);
std::string router_id_of(std::int64_t asn);

// A node's AS: its inventory entry's, else the recipe's routing.node_asn (0: none).
std::int64_t node_asn(const NodeEntry& node, const Recipe& recipe);

}  // namespace railyard
