// What applying the plan did to each kernel object: the record "apply" reports.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "outcome.h"
#include "plan.h"

namespace railyard {

enum class ChangeOutcome {
  unchanged,    // already as planned
  changed,      // set now (or, in a dry run, would be)
  unsupported,  // the device or kernel lacks the knob; `detail` has the kernel's reason
  failed,       // the kernel refused
};

struct Change {
  std::string object;  // "rail 0 (ens1f0np0): MTU"
  ChangeOutcome outcome = ChangeOutcome::unchanged;
  std::string before;  // as read before
  std::string after;   // as planned
  std::string detail;  // what was done, or why not
};

std::string to_string(ChangeOutcome o);
// "rail 0 (ens1f0np0)", the prefix of every rail's Change object.
std::string rail_label(const RailPlan& rail);
// A Change from a Status: ok → `ok_outcome`; unsupported → unsupported; else failed.
Change change_from(const std::string& object, const Status& s, const std::string& before, const std::string& after,
                   ChangeOutcome ok_outcome = ChangeOutcome::changed);

nlohmann::ordered_json to_json(const Change& c);
nlohmann::ordered_json to_json(const std::vector<Change>& changes);

}  // namespace railyard
