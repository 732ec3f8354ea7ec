// `railyard report html`: one self-contained page (no script, font or image from anywhere
// else): the fleet's counts, a table of every node, and per node its failures with hints
// and a picture of its rails.
#pragma once

#include <string>
#include <vector>

#include "report/fleet_summary.h"
#include "report/loaded_report.h"

namespace railyard {

// `nodes`: the newest report of each node, in the order of the summary's fleet.
std::string fleet_page(const FleetSummary& summary, const std::vector<LoadedReport>& nodes);

}  // namespace railyard
