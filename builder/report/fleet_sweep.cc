#include "report/fleet_sweep.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "report/fleet.h"
#include "report/fleet_topology.h"
#include "report/report_source.h"
#include "slurm.h"

namespace railyard {

Outcome<SweepFleet> sweep_fleet_from_reports(const std::string& dir) {
  auto fleet = read_fleet(dir);
  if (!fleet.ok()) return Outcome<SweepFleet>::fail(fleet.error());
  std::vector<NodeFabric> nodes;
  for (const auto& d : fleet->passing) nodes.push_back({d.node, d.rails, true});
  Topology t = fleet_topology(*fleet);
  SweepFleet f{sweep_units(t, nodes), t.left_out, {}, {}};
  for (const auto& n : nodes) {
    std::vector<SweepPlace> rails;
    for (const auto& r : n.rails) rails.push_back(r ? SweepPlace{r->leaf, r->port} : SweepPlace{});
    f.places.emplace_back(n.node, std::move(rails));
  }
  return f;
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
      std::vector<SweepPlace> rails;
      for (const auto& l : s.leaves) rails.push_back({l, ""});
      f.places.emplace_back(name, std::move(rails));
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

Outcome<std::vector<SweepResult>> read_sweep_results(const std::string& dir, const SweepFleet& f) {
  namespace fs = std::filesystem;
  using Out = Outcome<std::vector<SweepResult>>;
  std::set<std::string> swept;
  for (const auto& u : f.units)
    for (const auto& n : u.nodes) swept.insert(n.name);
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) return Out::fail(dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<SweepResult> out;
  for (const auto& path : files) {
    auto text = read_text_file(path.string());
    if (!text.ok()) return Out::fail(text.error());
    auto j = nlohmann::json::parse(*text, nullptr, false);
    const std::string at = path.string();
    if (j.is_discarded() || !j.is_object() || !j.contains("schema") || j["schema"] != 1 || !j.contains("results") ||
        !j["results"].is_array())
      return Out::fail(at + ": expected {\"schema\": 1, \"node\": HOST, \"results\": [...]}, a sweep worker's file");
    for (std::size_t i = 0; i < j["results"].size(); ++i) {
      std::string why;
      auto r = sweep_result_from_json(j["results"][i], why);
      const std::string where = at + ": results[" + std::to_string(i) + "]";
      if (!r) return Out::fail(where + ": " + why);
      for (const auto* n : {&r->test.a, &r->test.b})
        if (!swept.count(*n)) return Out::fail(where + ": " + *n + " is not among the swept nodes");
      out.push_back(std::move(*r));
    }
  }
  // A worker writes the ways it wrote; the blame takes each test whole.
  return merge_sweep_ways(out);
}

}  // namespace railyard
