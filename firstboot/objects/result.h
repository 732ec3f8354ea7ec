// What every evaluator does to its check's result: start it from the plan's expectation,
// then pass or fail it with what was observed, or take a kernel read's Status.
#pragma once

#include <string>

#include "outcome.h"
#include "plan.h"
#include "report.h"

namespace railyard::checks {

// A result with the plan's expectation filled in; evaluators set status, observed, detail.
CheckResult start(const PlannedCheck& c);
void pass(CheckResult& r, std::string observed, std::string detail = "");
void fail(CheckResult& r, std::string observed, std::string detail = "");
void warn(CheckResult& r, std::string observed, std::string detail = "");
// The device lacks the knob: the check cannot pass here, and says why.
void unsupported(CheckResult& r, std::string observed, std::string detail = "");
// The Status of a kernel read: unsupported where the device lacks the knob, else fail.
void from_status(CheckResult& r, const Status& s);

}  // namespace railyard::checks
