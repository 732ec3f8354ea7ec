// What applying the plan did to each kernel object: the record "apply" reports.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railyard {

enum class Outcome {
  unchanged,    // already as planned
  changed,      // set now (or, in a dry run, would be)
  unsupported,  // the device or kernel lacks the knob; `detail` has the kernel's reason
  failed,       // the kernel refused
};

struct Change {
  std::string object;  // "rail 0 (ens1f0np0): MTU"
  Outcome outcome = Outcome::unchanged;
  std::string before;  // as read before
  std::string after;   // as planned
  std::string detail;  // what was done, or why not
};

std::string to_string(Outcome o);
nlohmann::ordered_json to_json(const Change& c);
nlohmann::ordered_json to_json(const std::vector<Change>& changes);

}  // namespace railyard
