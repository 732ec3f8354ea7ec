// Where `railyard fabric sweep` takes the fleet from: the units that the nodes' reports give
// (as `railyard report topology` reads them), or a topology file that command wrote as JSON,
// kept to the inventory's nodes when one is given.
#pragma once

#include <string>
#include <vector>

#include "node_inventory.h"
#include "outcome.h"
#include "sweep.h"
#include "topology.h"

namespace railyard {

struct SweepFleet {
  std::vector<SweepUnit> units;
  std::vector<LeftOut> left_out;        // not swept: miscabled, never passed, or not in the inventory
  std::vector<std::string> references;  // the inventory's reference nodes, retests' first peers
  // Where each swept node's rails reach (LLDP from its report; from a topology file, the
  // unit's leaf and no port).
  std::vector<std::pair<std::string, std::vector<SweepPlace>>> places;
};

// From the newest passing report of each node in `dir` (report/fleet_topology.h).
Outcome<SweepFleet> sweep_fleet_from_reports(const std::string& dir);

// From `text`, the JSON of `railyard report topology --format json` (docs/topology.schema.json),
// read from `path` (named in errors): every unit's nodes have its leaves' rails. Names that
// reach a Slurm host list or a file name are checked.
Outcome<SweepFleet> sweep_fleet_from_topology(const std::string& text, const std::string& path);

// Only the inventory's nodes are swept; the others in `f` are left out, named. The
// inventory's references (reference = true) become f.references.
void keep_inventory_nodes(SweepFleet& f, const NodeInventory& inv);

// The workers' results under `dir` (each *.json file {"schema": 1, "node": HOST, "results":
// [RESULT, ...]}, sorted by name), every test's nodes among `f`'s units, a test's two ways
// (each written by its writer's worker, "from") merged into one (merge_sweep_ways). Errors
// name the file and the result.
Outcome<std::vector<SweepResult>> read_sweep_results(const std::string& dir, const SweepFleet& f);

}  // namespace railyard
