// railyard-firstboot: the first-boot agent inside the image. Phases live in discover/,
// apply/, verify/ and join/; this file only parses arguments and dispatches.
#include <iostream>

#include <CLI/CLI.hpp>

#include "io/disk_source.h"
#include "node_inventory.h"
#include "recipe_loader.h"
#include "version.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

// Validates the recipe and node identity the image carries, as the agent reads them at boot.
int run_check(const std::string& recipe_path, const std::string& node_path) {
  using namespace railyard;
  DiskSource disk;
  Diagnostics diags;
  RecipeOptions opts;
  opts.check_references = false;  // bundles and overlays were consumed when the image was built
  auto recipe = load_recipe(disk, recipe_path, opts, diags);
  bool node_present = disk.is_file(node_path);
  if (node_present) parse_node_identity(disk, node_path, diags);
  for (const auto& d : diags.sorted()) std::cerr << format(d) << "\n";
  if (!diags.empty()) return kExitBadInput;
  std::cout << recipe_path << ": ok (recipe '" << recipe->recipe.name << "')\n";
  if (node_present) std::cout << node_path << ": ok (node identity)\n";
  else std::cout << node_path << ": absent; rail addresses will be left out of the plan\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railyard-firstboot: configure, verify and join a node on its first boot"};
  app.set_version_flag("--version", std::string("railyard-firstboot ") + railyard::kVersion);
  app.require_subcommand(1);
  std::string recipe = "/etc/railyard/recipe.toml";
  std::string node = "/etc/railyard/node.toml";
  auto* check = app.add_subcommand("check", "Validate the recipe and node identity this node boots with");
  check->add_option("--recipe", recipe, "Recipe (default /etc/railyard/recipe.toml)");
  check->add_option("--node", node, "Node identity (default /etc/railyard/node.toml)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  if (*check) return run_check(recipe, node);
  return kExitBadInput;
}
