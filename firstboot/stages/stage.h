// A run of the agent as named stages, after Ignition's stages/: each has a name, says when it
// is wanted, and runs with the run's context; the runner times it into the report's phase it
// belongs to and wraps its error with its name. A new step of first boot (a peer probe, a
// sweep) is one more row of a stage list, not code threaded through a long function.
#pragma once

#include <span>
#include <string_view>

#include "outcome.h"

namespace railyard {

struct RunContext;  // stages/run.h

struct Stage {
  std::string_view name;              // in the journal and in errors: "stage storage: ..."
  std::string_view phase;             // the report's phase its time counts in; empty: not timed
  bool (*wanted)(const RunContext&);  // null: always
  Status (*run)(RunContext&);
};

// Runs the stages in order, each that is wanted. The time of each goes to its phase in
// ctx.report.phases, a phase listed where its first stage ran (several stages may share one,
// so that the report's phases stay those operators know). Stops at the first stage that fails,
// and returns its error prefixed with "stage NAME: ".
Status run_stages(std::span<const Stage> stages, RunContext& ctx);

}  // namespace railyard
