// The far end of every rail, from its LLDP neighbour: whether the cable reaches the leaf and
// port it must (rail i of every node to leaf i), and whether that port's advertised PFC,
// maximum frame size and VLANs match the rail. The host never adopts what a switch says
// (it is not DCBX-willing): a difference is a finding.
#pragma once

#include <nlohmann/json.hpp>

#include "objects/verify_context.h"

namespace railyard::checks {

void rail_lldp(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rail_lldp_pfc(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rail_lldp_mtu(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
void rail_lldp_vlan(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
// [fabric.topology]: every rail's neighbour is the node's unit's leaf for that rail; a stray
// one is named with the unit and rail whose leaf it is.
void rails_unit(const VerifyContext& ctx, CheckResult& r);

// "leaf-r0 port swp1": how a neighbour is named in checks and views.
std::string neighbor_name(const LldpNeighbor& n);

// The interfaces to listen on: each rail's (a bond's first port).
std::vector<std::string> lldp_listen_ports(const Plan& plan);

// The report's `lldp`: per rail {rail, ifname, expected {system, port}, neighbor (null when
// none was heard: then frames and invalid say what came), frames, invalid, other_neighbors
// (heard besides the first), flood_per_s (0 when there was none)}.
nlohmann::ordered_json lldp_report(const Plan& plan, LldpNeighbors& lldp);
nlohmann::ordered_json to_json(const LldpNeighbor& n);

}  // namespace railyard::checks
