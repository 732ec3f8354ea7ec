#include "report/fleet_sweep.h"

#include <set>

#include "report/fleet.h"
#include "report/fleet_topology.h"
#include "slurm.h"

namespace railyard {

Outcome<SweepFleet> sweep_fleet_from_reports(const std::string& dir) {
  auto fleet = read_fleet(dir);
  if (!fleet.ok()) return Outcome<SweepFleet>::fail(fleet.error());
  std::vector<NodeFabric> nodes;
  for (const auto& d : fleet->passing) nodes.push_back({d.node, d.rails, true});
  Topology t = fleet_topology(*fleet);
  return SweepFleet{sweep_units(t, nodes), t.left_out, {}};
}

Outcome<SweepFleet> sweep_fleet_from_topology(const std::string& text, const std::string& path) {
  auto bad = [&](const std::string& where, const std::string& why) {
    return Outcome<SweepFleet>::fail(path + ": " + where + ": " + why);
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return bad("line 1", "not JSON; expected the output of railyard report topology --format json");
  if (!j.is_object() || !j.contains("schema") || j["schema"] != 1)
    return bad("schema", "expected 1, the topology JSON of railyard report topology --format json");
  if (!j.contains("units") || !j["units"].is_array()) return bad("units", "expected an array of units");
  SweepFleet f;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j["units"].size(); ++i) {
    const auto& u = j["units"][i];
    const std::string at = "units[" + std::to_string(i) + "]";
    if (!u.is_object() || !u.contains("name") || !u["name"].is_string() || !u.contains("leaves") ||
        !u["leaves"].is_array() || u["leaves"].empty() || !u.contains("nodes") || !u["nodes"].is_array())
      return bad(at, "expected {\"name\": STR, \"leaves\": [STR, one per rail], \"nodes\": [HOST, ...]}");
    SweepUnit s;
    s.name = u["name"].get<std::string>();
    if (auto why = check_slurm_name(s.name)) return bad(at + ".name", *why);
    for (const auto& l : u["leaves"]) {
      if (!l.is_string()) return bad(at + ".leaves", "expected leaf names (strings)");
      s.leaves.push_back(l.get<std::string>());
    }
    for (std::size_t k = 0; k < u["nodes"].size(); ++k) {
      const auto& n = u["nodes"][k];
      const std::string nat = at + ".nodes[" + std::to_string(k) + "]";
      if (!n.is_string()) return bad(nat, "expected a host name (string)");
      std::string name = n.get<std::string>();
      if (auto why = check_slurm_name(name)) return bad(nat, *why);
      if (!seen.insert(name).second) return bad(nat, name + " is in more than one unit");
      s.nodes.push_back({name, static_cast<int>(s.leaves.size())});
    }
    f.units.push_back(std::move(s));
  }
  if (j.contains("left_out") && j["left_out"].is_array())
    for (const auto& o : j["left_out"]) {
      if (!o.is_object() || !o.contains("node") || !o["node"].is_string()) continue;
      LeftOut l;
      l.node = o["node"].get<std::string>();
      l.why = o.contains("why") && o["why"].is_string() ? o["why"].get<std::string>() : "left out of the topology";
      if (o.contains("rail") && o["rail"].is_number_integer()) l.rail = o["rail"].get<int>();
      if (o.contains("likely_unit") && o["likely_unit"].is_string())
        l.likely_unit = o["likely_unit"].get<std::string>();
      f.left_out.push_back(std::move(l));
    }
  return f;
}

void keep_inventory_nodes(SweepFleet& f, const NodeInventory& inv) {
  std::set<std::string> listed;
  for (const auto& n : inv.nodes) {
    listed.insert(n.hostname);
    if (n.reference) f.references.push_back(n.hostname);
  }
  for (auto& u : f.units) {
    std::vector<SweepNode> kept;
    for (auto& n : u.nodes) {
      if (listed.count(n.name)) kept.push_back(std::move(n));
      else f.left_out.push_back({n.name, "not in the inventory", -1, "", "", u.name});
    }
    u.nodes = std::move(kept);
  }
}

}  // namespace railyard
