// `railyard report html`: one self-contained page (no script, font or image from anywhere
// else): the fleet's counts, the fabric's scalable units, a table of every node, and per
// node its failures with hints and a picture of its rails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/fleet_summary.h"
#include "report/report_reader.h"
#include "report/sweep_view.h"
#include "topology.h"

namespace railyard {

// Reads one node's whole report, for its section.
using ReportLoader = std::function<Outcome<LoadedReport>(const ReportDigest&)>;

// `nodes`: the newest report of each node (Fleet::nodes); the table is made from them, and
// each node's section from its whole report, loaded one at a time so that a large fleet's
// page needs the memory of one report (past kAllPicturesUpTo nodes, a passing node that the
// topology places gets a line, its report not loaded). A report that cannot be loaded is
// named on the page and added to `unreadable`.
// `topology`: the fleet's scalable units (fleet_topology.h), drawn as the fabric view above
// the node table.
// Up to this many nodes the page draws every node's rails; past it, the failing nodes' and
// those left out of the topology only.
inline constexpr std::size_t kAllPicturesUpTo = 256;

// `sweep`, when given: the last fleet sweep's verdict (sweep.json), drawn after the fabric.
std::string fleet_page(const FleetSummary& summary, const std::vector<ReportDigest>& nodes, const Topology& topology,
                       const ReportLoader& load, std::vector<UnreadableReport>& unreadable,
                       const SweepView* sweep = nullptr);

}  // namespace railyard
