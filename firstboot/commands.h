// The agent's subcommands, one cmd_*.cc each.
#pragma once

#include "inputs.h"
#include "outcome.h"

namespace railyard {

int cmd_check(const InputPaths& paths);
int cmd_discover(const InputPaths& paths, bool json);
int cmd_plan(const InputPaths& paths, bool json);
// Discovers, plans, writes the rendered files under `root`; with `dry_run` changes nothing else.
int cmd_run(const InputPaths& paths, const std::string& root, bool dry_run, bool json);
// Verifies the node against the plan without changing it (exit 0 pass, 1 fail); drains a
// joined node that regressed ([join.slurm]).
int cmd_verify(const InputPaths& paths, const std::string& root, bool json);
// A new directory for a dry run's files ($TMPDIR, else /tmp: railyard-dry-run.XXXXXX).
Outcome<std::string> make_preview_root();
// The storage-target role of a lab VM: serves the recipe's [[nvmeof]] targets (target/).
int cmd_target(const InputPaths& paths, const std::string& root);

}  // namespace railyard
