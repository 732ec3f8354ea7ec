// A whole report read back into the model, for the views of one node (`report show`, the
// HTML page) and for the receiver: validated as the fleet summary validates it, then every
// field taken (checks, phases, host, plan, inventory, changes, problems).
#pragma once

#include <string>
#include <string_view>

#include "outcome.h"
#include "report.h"

namespace railyard {

struct LoadedReport {
  int schema = 0;
  bool passed = false;  // the report's own `result`
  Report report;
  // `node`, or the host name when the report has no node identity.
  std::string name() const { return report.node.empty() ? report.host.hostname : report.node; }
};

Outcome<LoadedReport> parse_report(std::string_view text);

}  // namespace railyard
