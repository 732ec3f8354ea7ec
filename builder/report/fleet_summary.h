// `railyard report summary`: the fleet at a glance. Pass/fail counts; how each kind of
// check stands (verified, failed, unsupported, skipped on how many nodes), so that a green
// fleet whose lossless settings were never confirmed does not look proven; failures by
// check kind; nodes by SKU (recipe), driver release and kernel; the slowest first boots.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/fleet.h"
#include "report/text_style.h"

namespace railyard {

struct CheckFailures {
  std::string kind;                   // "rail.*.pfc"
  std::size_t nodes = 0;              // nodes with at least one such failure
  std::size_t checks = 0;             // failing checks of that kind, over all nodes
  std::vector<std::string> examples;  // the first few nodes, by name
};

// How one kind of check stands over the fleet: each node counted once, by its worst check
// of that kind (a node with rail.0.pfc pass and rail.1.pfc unsupported is unsupported).
struct CheckTally {
  CheckKind kind = CheckKind::other;
  std::string check;  // "rail.*.pfc"
  std::size_t nodes = 0, pass = 0, warn = 0, fail = 0, unsupported = 0, skip = 0;
  std::size_t verified() const { return pass + warn; }
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
  std::size_t passed = 0;  // a report that contradicts itself is counted as failed
  // Passing nodes with a check of some kind unsupported or skipped: green, but not proven.
  std::size_t passed_unverified = 0;
  std::vector<std::string> contradictory;  // nodes whose report's result contradicts its checks
  std::vector<CheckTally> checks;          // every kind seen, in the report's order of kinds
  std::vector<CheckFailures> failures;     // most nodes first; planning problems as "(plan)"
  std::vector<GroupCount> by_recipe, by_driver_release, by_kernel;  // most nodes first
  std::vector<SlowNode> slowest;                                    // slowest first
  std::vector<UnreadableReport> unreadable;
};

inline constexpr std::size_t kSlowestShown = 10;
inline constexpr std::size_t kExamplesShown = 5;

FleetSummary summarize(const Fleet& fleet);
// A node counts as passing when its report says so and nothing in it says otherwise.
bool counts_as_pass(const ReportDigest& n);
// "verified on 0 of 7 nodes, unsupported by the driver on 7".
std::string tally_text(const CheckTally& t);
std::string to_text(const FleetSummary& s, const TextStyle& style);
nlohmann::ordered_json to_json(const FleetSummary& s);

}  // namespace railyard
