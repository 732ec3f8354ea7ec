#include "leaf_config.h"

#include <algorithm>
#include <map>
#include <set>

#include "frr.h"
#include "plan.h"
#include "text.h"

namespace railyard {

namespace {

using J = nlohmann::ordered_json;

J or_null(const std::string& s) { return s.empty() ? J(nullptr) : J(s); }

int rails_of(const Recipe& r, const std::vector<NodeEntry>& nodes) {
  int n = r.hardware.rail_count > 0 ? r.hardware.rail_count : static_cast<int>(r.hardware.rails.size());
  if (n == 0 && r.addressing.mode == AddressingMode::per_rail_subnet) n = static_cast<int>(r.addressing.subnets.size());
  for (const auto& node : nodes) n = std::max(n, static_cast<int>(node.rails.size()));
  return n;
}

}  // namespace

LeafPlan plan_leaves(const Recipe& recipe, const std::vector<NodeEntry>& nodes) {
  LeafPlan out;
  std::map<std::pair<int, std::string>, LeafIntent> by_name;  // (first rail, name)
  std::map<std::string, int> first_rail;
  int rails = rails_of(recipe, nodes);
  std::map<std::string, std::string> unit_by_node = unit_index(recipe);  // [fabric.topology], read once
  for (int rail = 0; rail < rails; ++rail)
    for (const auto& node : nodes) {
      const std::string& unit = unit_by_node[node.hostname];
      std::string system =
          expand_lldp_template(node.lldp_system.empty() ? recipe.lldp.expect_system : node.lldp_system, rail, unit);
      std::string port =
          expand_lldp_template(node.lldp_port.empty() ? recipe.lldp.expect_port : node.lldp_port, rail, unit);
      std::string key = system.empty() ? "rail-" + std::to_string(rail) : system;
      int first = first_rail.emplace(key, rail).first->second;
      LeafIntent& leaf = by_name[{first, key}];
      leaf.name = system;
      leaf.file = key + ".json";
      if (std::find(leaf.rails.begin(), leaf.rails.end(), rail) == leaf.rails.end()) leaf.rails.push_back(rail);
      std::string address =
          static_cast<std::size_t>(rail) < node.rails.size() ? node.rails[static_cast<std::size_t>(rail)] : "";
      std::int64_t asn = recipe.routing.mode == RoutingMode::bgp_unnumbered ? node_asn(node, recipe) : 0;
      std::string vtep = asn != 0 && recipe.tenant.vni != 0 ? node.vtep : "";
      leaf.ports.push_back({port, rail, node.hostname, address, asn, vtep});
    }
  for (auto& [key, leaf] : by_name) {
    std::set<std::string> taken;
    for (const auto& p : leaf.ports)
      if (!p.port.empty() && !taken.insert(p.port).second)
        out.problems.push_back(leaf.file.substr(0, leaf.file.size() - 5) + ": port " + p.port +
                               " is expected by more than one node (" + p.node +
                               " among them); give each node its "
                               "own lldp_port in the inventory");
    // A BGP unnumbered session is named by its port: a routed leaf needs every port's name.
    if (recipe.routing.mode == RoutingMode::bgp_unnumbered && recipe.routing.leaf_asn != 0)
      for (const auto& p : leaf.ports)
        if (p.port.empty())
          out.problems.push_back(leaf.file.substr(0, leaf.file.size() - 5) + ": " + p.node + "'s port on rail " +
                                 std::to_string(p.rail) +
                                 " has no name, and its BGP session is named by it; give "
                                 "fabric.lldp.expect_port or the node's lldp_port");
    // The leaf's name becomes a file name. check_lldp_template allows neither; this guards a
    // recipe or node built in code, which no validator saw.
    if (leaf.file.find('/') != std::string::npos || leaf.file.front() == '.')
      out.problems.push_back("leaf '" + leaf.name +
                             "' cannot name a file; use a system name without '/' or a leading '.'");
    out.leaves.push_back(std::move(leaf));
  }
  return out;
}

J to_json(const LeafIntent& leaf, const Recipe& r) {
  const FabricSpec& f = r.fabric;
  const LeafSpec& s = r.leaf;
  bool pfc = f.pfc != Requirement::off;
  J priorities = pfc ? J::array({f.pfc_priority}) : J::array();
  std::vector<int> map = dscp_to_priority(f);
  const bool routed = r.routing.mode == RoutingMode::bgp_unnumbered && r.routing.leaf_asn != 0;
  J ports = J::array();
  for (const auto& p : leaf.ports) {
    J port = {{"port", or_null(p.port)},
              {"rail", p.rail},
              {"node", p.node},
              {"node_address", or_null(p.node_address)},
              {"vlan", f.vlan ? J(*f.vlan) : J(nullptr)},
              {"expected_neighbor", {{"system_name", p.node}}}};
    if (routed) {
      J accept = J::array();
      if (!p.node_address.empty()) accept.push_back(p.node_address.substr(0, p.node_address.find('/')) + "/32");
      if (!p.vtep.empty()) accept.push_back(p.vtep + "/32");
      port["bgp"] = {{"remote_as", p.remote_as}, {"accept", accept}};
    }
    ports.push_back(std::move(port));
  }
  J bgp = nullptr;
  if (routed) {
    std::int64_t asn = leaf_asn(leaf, r);
    bgp = {{"asn", asn},
           {"router_id", router_id_of(asn)},
           {"unnumbered", true},
           {"fabric_prefixes", r.routing.fabric_prefixes},
           {"send", "fabric prefixes only, never a default route"},
           {"config", leaf.file.substr(0, leaf.file.size() - 5) + ".frr.conf"}};
  }
  int frame = rail_frame_size(f);
  return {
      {"schema", kLeafConfigSchema},
      {"leaf", or_null(leaf.name)},
      {"recipe", r.name},
      {"rails", leaf.rails},
      {"lldp",
       {{"system_name", or_null(leaf.name)},
        {"advertise", {"port-id", "pfc-configuration", "max-frame-size", "port-vlan-id", "vlan-name"}}}},
      {"pfc",
       {{"priorities", priorities},
        {"enable", hex(pfc ? 1u << f.pfc_priority : 0u, 2)},
        {"willing", false},
        {"watchdog", {{"detection_ms", s.pfc_watchdog_detect_ms}, {"restoration_ms", s.pfc_watchdog_restore_ms}}}}},
      {"ecn", f.ecn == Requirement::off ? J(nullptr)
                                        : J{{"priority", f.pfc_priority},
                                            {"min_kb", s.ecn_min_kb},
                                            {"max_kb", s.ecn_max_kb},
                                            {"probability_pct", s.ecn_probability_pct}}},
      {"trust", to_string(f.trust)},
      {"roce", {{"dscp", f.roce_dscp}, {"priority", f.pfc_priority}}},
      {"cnp", {{"dscp", f.cnp_dscp}, {"priority", map[static_cast<std::size_t>(f.cnp_dscp)]}}},
      {"dscp_to_priority", map},
      {"priority_to_traffic_class", {0, 1, 2, 3, 4, 5, 6, 7}},
      {"vlans", f.vlan ? J::array({*f.vlan}) : J::array()},
      {"mtu", leaf_port_mtu(r)},
      {"min_frame_size", frame},
      {"bgp", bgp},
      {"ports", ports},
  };
}

}  // namespace railyard
