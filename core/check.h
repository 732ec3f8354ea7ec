// `railyard check`: validate recipes, driver manifests and node inventories together.
#pragma once

#include <string>
#include <vector>

#include "diagnostic.h"
#include "recipe_loader.h"
#include "source.h"

namespace railyard {

enum class FileKind { recipe, driver_manifest, node_inventory };

// Decided by content: [[node]] tables make an inventory; a top-level `kind`, or a file under
// a drivers/ directory, a driver manifest; anything else is a recipe.
FileKind detect_kind(const std::string& path, const toml::table& table);
std::string to_string(FileKind k);

struct CheckedFile {
  std::string path;
  FileKind kind = FileKind::recipe;
  bool ok = false;
};

// Every error of every file goes to `diags`.
std::vector<CheckedFile> check_files(const FileSource& files, const std::vector<std::string>& paths,
                                     const RecipeOptions& opts, Diagnostics& diags);

}  // namespace railyard
