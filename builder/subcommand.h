// Subcommands that register themselves: a builder/cmd_*.cc file adds its subcommand to the
// CLI and says what runs when it is chosen, so that main.cc need not know every command.
//
//   namespace {
//   const bool registered = railyard::register_subcommand(50, [](CLI::App& app) {
//     auto opt = std::make_shared<Options>();
//     auto* sub = app.add_subcommand("diff", "…");
//     sub->add_option("old", opt->old_path)->required();
//     return railyard::Subcommand{sub, [opt](const railyard::CommandContext& ctx) { return run_diff(*opt); }};
//   });
//   }
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commands.h"

namespace CLI {
class App;
}

namespace railyard {

struct CommandContext {
  const FileSource& files;      // the disk, with the embedded recipe layered on top
  const CommonOptions& common;  // --drivers, --overlays
};

struct Subcommand {
  CLI::App* app = nullptr;                        // chosen when *app is true after parsing
  std::function<int(const CommandContext&)> run;  // returns the exit code
};

using SubcommandFactory = std::function<Subcommand(CLI::App& parent)>;

// `rank` orders subcommands in --help (lower first) whatever the link order. Always true.
bool register_subcommand(int rank, SubcommandFactory factory);

// main.cc: every registered factory, in rank order.
std::vector<SubcommandFactory> registered_subcommands();

// This program's own path (/proc/self/exe), "" when the kernel does not say: the agent's
// package is looked up beside it, and the lab harness runs it again as its relay.
std::string self_executable();

}  // namespace railyard
