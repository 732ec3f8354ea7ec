// What the fleet summary needs of one report, read in one pass without building the rest
// (the plan, changes and inventory are stepped over): identity, result, failing checks,
// phase timings, and what the node runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "outcome.h"
#include "report.h"

namespace railyard {

struct FailedCheck {
  CheckId id;
  CheckStatus status = CheckStatus::fail;
};

struct ReportDigest {
  std::string path;  // where it was read from
  int schema = 0;
  std::string node;  // `node`, or host.hostname when the report has no node identity
  std::string recipe;
  bool passed = false;  // the report's own `result`
  std::string started_at;
  std::string railyard_version;
  std::string kernel;
  std::string boot_id;
  std::vector<std::string> drivers;
  int check_count = 0;
  std::vector<FailedCheck> failures;  // the checks that count against the node
  std::vector<std::string> problems;  // planning problems
  std::vector<PhaseTiming> phases;
  double total_ms() const;
};

// Reads a report's text. Errors say what is wrong and where ("line 3, column 7: ..." or
// "not a railyard report: no 'checks'").
Outcome<ReportDigest> read_digest(std::string_view text);

}  // namespace railyard
