// The agent's subcommands, one cmd_*.cc each, registered there (io/subcommand.h).
#pragma once

#include "discover/inputs.h"
#include "io/subcommand.h"

namespace railyard {

// What main gives the chosen subcommand: where the recipe and the node identity are.
struct AgentContext {
  const InputPaths& paths;
};

using AgentCommands = SubcommandRegistry<AgentContext>;

}  // namespace railyard
