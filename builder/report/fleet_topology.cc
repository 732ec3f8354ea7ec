#include "report/fleet_topology.h"

#include <unordered_set>

#include "slurm.h"

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

Outcome<std::string> render_topology(const Topology& t, const TopologyFormat& f) {
  if (f.format == "slurm-tree" || f.format == "slurm-block") {
    // Every name goes into topology.conf as Slurm parses it: a leaf's LLDP name of other
    // characters cannot name a switch there.
    std::vector<std::pair<std::string, std::string>> names;
    if (f.format == "slurm-tree") names.push_back({"spine", f.spine});
    for (const auto& u : t.units) {
      names.push_back({"unit", u.name});
      for (const auto& n : u.nodes) names.push_back({"node", n});
    }
    for (const auto& [what, name] : names)
      if (auto bad = check_slurm_name(name)) return Outcome<std::string>::fail(what + " " + *bad);
    for (int s : f.block_sizes)
      if (s < 1) return Outcome<std::string>::fail("block size " + std::to_string(s) + ": allowed: 1 node or more");
    return f.format == "slurm-tree" ? render_slurm_tree(t, f.spine) : render_slurm_block(t, f.block_sizes);
  }
  if (f.format == "json")
    return to_json(t).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  if (f.format == "k8s-labels") {
    std::string why;
    auto labels = render_k8s_labels(t, why);
    if (!labels) return Outcome<std::string>::fail(why);
    return *labels;
  }
  return Outcome<std::string>::fail("unknown format '" + f.format + "'; allowed: " + kTopologyFormats);
}

}  // namespace railyard
