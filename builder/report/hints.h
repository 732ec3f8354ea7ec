// The usual cause of a failing check, in one line an operator can act on: looked up by
// the check's kind (rail.3.pfc → rail.*.pfc) and refined by what was observed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report.h"

namespace railyard {

// The check's name with rail, GPU and NVMe-oF indices and PCI addresses replaced by '*':
// what the fleet summary groups failures by ("rail.*.pfc", "gpudirect.acs.*").
std::string check_kind(std::string_view name);

// "" when there is no hint for that check.
std::string hint_for(const CheckResult& c);
// The same, knowing the node's other results: a failure that follows from a rail's link
// being down says so instead of listing causes that do not apply.
std::string hint_for(const CheckResult& c, const std::vector<CheckResult>& all);
// For a planning problem (the hardware cannot satisfy the recipe).
std::string hint_for_problem(const std::string& problem);

}  // namespace railyard
