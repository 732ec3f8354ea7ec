// railyard: the host CLI. Every subcommand registers itself from its cmd_*.cc (subcommand.h);
// main parses the arguments and runs the one chosen.
#include <CLI/CLI.hpp>

#include "commands.h"
#include "io/cli.h"
#include "io/disk_source.h"
#include "io/log.h"
#include "subcommand.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace railyard;
  logging::setup("railyard");
  CLI::App app{"railyard: PXE images for GPU servers on a RoCEv2 fabric", "railyard"};
  app.set_version_flag("--version", std::string("railyard ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // --drivers/--overlays may follow the subcommand
  logging::Verbosity verbosity = logging::Verbosity::normal;
  add_verbosity_flags(app, verbosity);
  CommonOptions common;
  app.add_option("--drivers", common.drivers_dir,
                 "Driver manifests directory (default: drivers/ beside or above the recipe)");
  app.add_option("--overlays", common.overlays_dir,
                 "Overlays directory (default: overlays/ beside or above the recipe)");

  std::vector<Subcommand> registered = BuilderCommands::attach(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e, kExitBadInput);
  }
  // Every diagnostic from here on names the command: "railyard report show: ...".
  logging::rename(command_path(app));
  logging::set_verbosity(verbosity);

  DiskSource disk;
  LayeredSource files(disk);
  files.add(kEmbeddedRecipePath, kEmbeddedRecipeText);
  for (const auto& sub : registered)
    if (*sub.app) return sub.run(CommandContext{files, common});
  return kExitBadInput;
}
