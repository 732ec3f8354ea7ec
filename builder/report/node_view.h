// `railyard report show`: one node's report for the operator who has to fix it. Failures
// first, each with expected vs observed and the usual cause; then the other non-passing
// checks; then each phase with its timing and what it came to.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/report_reader.h"
#include "report/text_style.h"

namespace railyard {

struct PhaseSummary {
  std::string phase;
  double ms = 0;
  std::string result;  // "8 rails, 177 checks", "38 changed, 120 unchanged", ...
};

// Each timed phase with what it came to, from the report's inventory, plan, changes, checks.
std::vector<PhaseSummary> phase_summaries(const Report& r);
// Each rail's LLDP neighbour as the report says it was heard, a line per rail ("rail 0
// enp17s0 → leaf-r0 port swp1 (PFC 0x08, frame 9216, VLAN 100); expected leaf-r0 port swp1").
std::vector<std::string> far_end_lines(const Report& r);
// "rail 0  → 198.18.0.100:18515  0.06 Gb/s, 4058.4 µs, counters clean": each rail's peer
// probe across its leaf (escaped); empty when none ran.
std::vector<std::string> peer_lines(const Report& r);
// Each GPU beside the rail it is pinned to, with its gpu.N checks summed up ("rail 0  ens1f0
// ← GPU 0 0000:18:00.0 NVIDIA H100 80GB HBM3: 10 pass; 38 °C; NVLink 18 of 18 active"), the
// failing or warning ones named with what was observed; none when the plan has no GPU.
std::vector<std::string> gpu_lines(const Report& r);

// What joining did, a line each (the report's "join": the gate, each join unit's state, the
// on-fail command, the report's POST attempts); none when the report has no join record.
std::vector<std::string> join_lines(const Report& r);
// The image's driver bundles' modules as the node's kernel had them, one line each: name,
// loaded version, loaded or not, the bundle, the version DKMS built, srcversion.
std::vector<std::string> module_lines(const Report& r);
std::string node_text(const LoadedReport& r, const TextStyle& style);
nlohmann::ordered_json node_json(const LoadedReport& r);

}  // namespace railyard
