// What a lab run means, from what the guest exported: exit 0 when the node passed its
// self-test and joined, 1 when it failed (or passed without joining), 2 when there is no
// usable report (the harness, the boot or the agent broke before reporting).
#pragma once

#include <string>
#include <vector>

namespace railyard {

struct LabVerdict {
  int exit_code = 2;
  std::string summary;              // one line
  std::vector<std::string> detail;  // failed checks (name: expected / observed), problems
};

// `report_text`: /var/lib/railyard/report.json as exported; `status_text`: the export
// script's status line (agent exit code, joined, ready unit); `agent_errors`: the agent's
// journal lines of priority err and above, which say why a node that passed did not join
// (each a detail line then). Any may be empty.
LabVerdict judge_lab_run(const std::string& report_text, const std::string& status_text,
                         const std::string& agent_errors = "");

}  // namespace railyard
