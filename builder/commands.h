// The `railyard` subcommands; each lives in its own cmd_*.cc file.
#pragma once

#include <string>
#include <vector>

#include "exit_code.h"
#include "recipe_loader.h"
#include "source.h"

namespace railyard {

// The default recipe compiled into the binary (recipes/qemu-virt.toml) and the path it is served at.
extern const char* const kEmbeddedRecipeText;
inline constexpr const char* kEmbeddedRecipePath = "<embedded>/qemu-virt.toml";

struct CommonOptions {
  std::string drivers_dir;
  std::string overlays_dir;
  RecipeOptions recipe_options() const { return {true, drivers_dir, overlays_dir}; }
};

}  // namespace railyard
