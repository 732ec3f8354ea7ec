// `railyard report html`: one self-contained page (no script, font or image from anywhere
// else): the fleet's counts, a table of every node, and per node its failures with hints
// and a picture of its rails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/fleet_summary.h"
#include "report/report_reader.h"

namespace railyard {

// Reads one node's whole report, for its section.
using ReportLoader = std::function<Outcome<LoadedReport>(const ReportDigest&)>;

// `nodes`: the newest report of each node (Fleet::nodes); the table is made from them, and
// each node's section from its whole report, loaded one at a time so that a large fleet's
// page needs the memory of one report. A report that cannot be loaded is named on the page
// and added to `unreadable`.
std::string fleet_page(const FleetSummary& summary, const std::vector<ReportDigest>& nodes, const ReportLoader& load,
                       std::vector<UnreadableReport>& unreadable);

}  // namespace railyard
