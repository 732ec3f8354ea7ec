// `railyard report summary`: the fleet at a glance. Pass/fail counts; failures by check
// kind; nodes by SKU (recipe), driver release and kernel; the slowest first boots.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/fleet.h"
#include "report/text_style.h"

namespace railyard {

struct CheckFailures {
  std::string kind;                    // "rail.*.pfc"
  std::size_t nodes = 0;               // nodes with at least one such failure
  std::size_t checks = 0;              // failing checks of that kind, over all nodes
  std::vector<std::string> examples;   // the first few nodes, by name
};

struct GroupCount {
  std::string name;  // a recipe, a driver release ("doca-ofed-2.10.0 + cuda-13.0"), a kernel
  std::size_t nodes = 0;
  std::size_t passed = 0;
  std::size_t failed() const { return nodes - passed; }
};

struct SlowNode {
  std::string node;
  double total_ms = 0;
  std::vector<PhaseTiming> phases;
};

struct FleetSummary {
  std::string dir;
  std::size_t reports = 0;
  std::size_t nodes = 0;
  std::size_t passed = 0;
  std::vector<CheckFailures> failures;  // most nodes first; planning problems as "(plan)"
  std::vector<GroupCount> by_recipe, by_driver_release, by_kernel;  // most nodes first
  std::vector<SlowNode> slowest;        // slowest first
  std::vector<UnreadableReport> unreadable;
};

inline constexpr std::size_t kSlowestShown = 10;
inline constexpr std::size_t kExamplesShown = 5;

FleetSummary summarize(const Fleet& fleet);
std::string to_text(const FleetSummary& s, const TextStyle& style);
nlohmann::ordered_json to_json(const FleetSummary& s);

}  // namespace railyard
