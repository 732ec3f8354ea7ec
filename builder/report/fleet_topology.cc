#include "report/fleet_topology.h"

#include <unordered_set>

namespace railyard {

Topology fleet_topology(const Fleet& fleet) {
  std::vector<NodeFabric> nodes;
  std::unordered_set<std::string> passed;
  for (const auto& d : fleet.passing) {
    nodes.push_back({d.node, d.rails, true});
    passed.insert(d.node);
  }
  for (const auto& d : fleet.nodes)
    if (!passed.count(d.node)) nodes.push_back({d.node, d.rails, false});
  return group_units(nodes);
}

}  // namespace railyard
