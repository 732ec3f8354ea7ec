// `railyard-firstboot check`: the recipe and node identity the image carries, validated.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "io/disk_source.h"
#include "io/log.h"
#include "recipe_loader.h"

namespace railyard {

namespace {

int cmd_check(const InputPaths& paths) {
  DiskSource disk;
  Diagnostics diags;
  RecipeOptions opts;
  opts.check_references = false;
  auto recipe = load_recipe(disk, paths.recipe, opts, diags);
  bool node_present = disk.is_file(paths.node);
  if (node_present) parse_node_identity(disk, paths.node, recipe ? &recipe->recipe : nullptr, diags);
  for (const auto& d : diags.sorted()) logging::located(format(d));
  if (!diags.empty()) return kExitBadInput;
  std::cout << paths.recipe << ": ok (recipe '" << recipe->recipe.name << "')\n";
  if (node_present) std::cout << paths.node << ": ok (node identity)\n";
  else std::cout << paths.node << ": absent; rail addresses will be left out of the plan\n";
  return kExitOk;
}

const bool check_registered = AgentCommands::add(10, [](CLI::App& app) {
  auto* sub = app.add_subcommand("check", "Validate the recipe and node identity this node boots with");
  return AgentCommands::Subcommand{sub, [](const AgentContext& ctx) { return cmd_check(ctx.paths); }};
});

}  // namespace

}  // namespace railyard
