// One file's content from an image's root filesystem archives, as the node would see it
// after the kernel unpacked every part in order (a later part's copy wins).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "outcome.h"
#include "recipe.h"

namespace railyard {

// `path` is absolute ("/etc/railyard/recipe.toml"); `parts` are archive files in unpacking
// order. Nothing when no part holds it as a regular file; fails when a part is unreadable.
// Where every image carries the recipe it was built from.
inline constexpr const char* kImageRecipe = "/etc/railyard/recipe.toml";

Outcome<std::optional<std::string>> read_rootfs_file(const std::vector<std::string>& parts, const std::string& path);

// The recipe an image carries (its resolved form, kImageRecipe), read from `text`; `label`
// ("DIR/rootfs.cpio.zst:/etc/railyard/recipe.toml") names it in the error.
Outcome<Recipe> parse_image_recipe(const std::string& label, const std::string& text);

}  // namespace railyard
