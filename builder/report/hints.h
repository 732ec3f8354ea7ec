// The usual cause of a failing check, in one line an operator can act on: looked up by
// the check's kind and refined by what was observed.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace railyard {

// "" when there is no hint for that check.
std::string hint_for(const CheckResult& c);
// The same, knowing the node's other results: a failure that follows from a rail's link
// being down says so instead of listing causes that do not apply.
std::string hint_for(const CheckResult& c, const std::vector<CheckResult>& all);
// For a planning problem (the hardware cannot satisfy the recipe).
std::string hint_for_problem(const std::string& problem);

}  // namespace railyard
