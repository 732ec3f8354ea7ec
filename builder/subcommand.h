// The host CLI's subcommands: each builder/cmd_*.cc registers its own (io/subcommand.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commands.h"
#include "io/subcommand.h"

namespace railyard {

struct CommandContext {
  const FileSource& files;      // the disk, with the embedded recipe layered on top
  const CommonOptions& common;  // --drivers, --overlays
};

using BuilderCommands = SubcommandRegistry<CommandContext>;
using Subcommand = BuilderCommands::Subcommand;
using SubcommandFactory = BuilderCommands::Factory;

// `rank` orders subcommands in --help (lower first). Always true.
inline bool register_subcommand(int rank, SubcommandFactory factory) {
  return BuilderCommands::add(rank, std::move(factory));
}

// This program's own path (/proc/self/exe), "" when the kernel does not say: the agent's
// package is looked up beside it, and the lab harness runs it again as its relay.
std::string self_executable();

}  // namespace railyard
