// railyard-firstboot: the first-boot agent inside the image. Each subcommand registers itself
// from its cmd_*.cc (commands.h); main parses the arguments and runs the one chosen.
#include <CLI/CLI.hpp>

#include "commands.h"
#include "io/cli.h"
#include "io/log.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace railyard;
  logging::setup("railyard-firstboot");
  CLI::App app{"railyard-firstboot: configure, verify and join a node on its first boot", "railyard-firstboot"};
  app.set_version_flag("--version", std::string("railyard-firstboot ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();
  logging::Verbosity verbosity = logging::Verbosity::normal;
  add_verbosity_flags(app, verbosity);
  InputPaths paths;
  auto* recipe_opt = app.add_option("--recipe", paths.recipe, "Recipe (default /etc/railyard/recipe.toml)");
  app.add_option("--node", paths.node, "Node identity (default /etc/railyard/node.toml)");
  std::vector<AgentCommands::Subcommand> subcommands = AgentCommands::attach(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e, kExitBadInput);
  }
  // The agent's lines name the program only: on a node there is one agent, and the journal
  // says which of its units wrote them.
  logging::set_verbosity(verbosity);
  paths.recipe_given = recipe_opt->count() > 0;
  for (const auto& sub : subcommands)
    if (*sub.app) return sub.run(AgentContext{paths});
  return kExitBadInput;
}
