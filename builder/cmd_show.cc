// `railyard show [RECIPE]`: the resolved recipe (extends applied, defaults filled).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "io/log.h"
#include "subcommand.h"

namespace railyard {

namespace {

int run_show(const FileSource& files, const std::string& recipe_path, const CommonOptions& common, bool json) {
  Diagnostics diags;
  auto lr = load_recipe(files, recipe_path, common.recipe_options(), diags);
  if (!lr) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    return kExitBadInput;
  }
  if (json) {
    std::cout << render_recipe_json(lr->recipe);
  } else {
    std::cout << "# " << lr->recipe.name << ": resolved from " << recipe_path << "\n" << render_recipe_toml(lr->recipe);
  }
  return kExitOk;
}

const bool show_registered = register_subcommand(20, [](CLI::App& app) {
  struct Options {
    std::string path;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("show", "Print a recipe resolved (extends applied, defaults filled)");
  sub->add_option("recipe", opt->path, "Recipe file (default: the embedded default recipe)");
  sub->add_flag("--json", opt->json, "Print JSON instead of TOML");
  return Subcommand{sub, [opt](const CommandContext& ctx) {
                      return run_show(ctx.files, opt->path.empty() ? kEmbeddedRecipePath : opt->path, ctx.common,
                                      opt->json);
                    }};
});

}  // namespace

}  // namespace railyard
