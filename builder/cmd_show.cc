// `railyard show [RECIPE]`: the resolved recipe (extends applied, defaults filled).
#include <iostream>

#include "commands.h"

namespace railyard {

int run_show(const FileSource& files, const std::string& recipe_path, const CommonOptions& common, bool json) {
  Diagnostics diags;
  auto lr = load_recipe(files, recipe_path, common.recipe_options(), diags);
  if (!lr) {
    for (const auto& d : diags.sorted()) std::cerr << format(d) << "\n";
    return kExitBadInput;
  }
  if (json) {
    std::cout << render_recipe_json(lr->recipe);
  } else {
    std::cout << "# " << lr->recipe.name << ": resolved from " << recipe_path << "\n"
              << render_recipe_toml(lr->recipe);
  }
  return kExitOk;
}

}  // namespace railyard
