// The usual cause of a failing check, in one line an operator can act on: looked up by
// the check's kind and refined by what was observed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report.h"

namespace railyard {

// "" when there is no hint for that check.
std::string hint_for(const CheckResult& c);
// The same, knowing the node's other results: a failure that follows from a rail's link
// being down says so instead of listing causes that do not apply.
std::string hint_for(const CheckResult& c, const std::vector<CheckResult>& all);
// What a failing check means: the hint, and the check it follows from when it is only a
// consequence of another (a rail's speed when its link is down).
struct Explanation {
  std::string hint;
  std::optional<CheckId> follows_from;
};
Explanation explain(const CheckResult& c, const std::vector<CheckResult>& all);

// The failing checks that follow from no other failing check: what to fix first. Those that
// explain the most other failures come first (a rail's link before a PFC setting), then in
// report order. A failure whose cause is itself failing is left out.
std::vector<const CheckResult*> root_causes(const std::vector<CheckResult>& all);

// For a planning problem (the hardware cannot satisfy the recipe).
std::string hint_for_problem(const std::string& problem);

}  // namespace railyard
