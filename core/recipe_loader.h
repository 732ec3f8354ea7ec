// Loading a recipe: TOML (+ extends) → schema → cross-field checks → references.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "driver_manifest.h"
#include "recipe.h"
#include "source.h"

namespace railyard {

struct RecipeOptions {
  // On the build host bundles and overlays must exist; on the node they were consumed at build time.
  bool check_references = true;
  std::string drivers_dir;   // "" finds drivers/ beside the recipe or in a parent directory
  std::string overlays_dir;  // likewise overlays/
};

struct LoadedRecipe {
  std::string path;
  Recipe recipe;
  schema::Positions positions;
  std::set<std::string> failed;         // keys whose values were rejected
  std::vector<LoadedManifest> drivers;  // in the recipe's order, when references were checked
};

// Every problem goes to `diags`; nothing is returned when there was any.
std::optional<LoadedRecipe> load_recipe(const FileSource& files, const std::string& path, const RecipeOptions& opts,
                                        Diagnostics& diags);

// Contradictions between keys (pure; positions point at the offending keys).
// Keys in `failed` (rejected on their own) are left out of these checks.
void validate_recipe(const Recipe& r, const schema::Positions& pos, const std::set<std::string>& failed,
                     const std::string& file, Diagnostics& diags);

// Every key at its default (the schema's): what the agent assumes without a recipe.
Recipe default_recipe();

// Number of rails the recipe fixes, or 0 when discovery decides.
int fixed_rail_count(const Recipe& r);

std::string render_recipe_toml(const Recipe& r);
std::string render_recipe_json(const Recipe& r);

// Walks up from `start_dir` to the first directory holding `child/`; "" when none. A
// relative `start_dir` goes on above the working directory through "..", so that a recipe
// named "qemu-virt.toml" from inside recipes/ finds ../drivers as recipes/qemu-virt.toml
// finds drivers from the top.
std::string find_dir_upwards(const FileSource& files, const std::string& start_dir, const std::string& child);

}  // namespace railyard
