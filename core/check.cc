#include "check.h"

#include "driver_manifest.h"
#include "node_inventory.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

FileKind detect_kind(const std::string& path, const toml::table& table) {
  if (table.contains("node")) return FileKind::node_inventory;
  std::string dir = "/" + dir_name(path) + "/";
  if (table.contains("kind") || dir.find("/drivers/") != std::string::npos) return FileKind::driver_manifest;
  return FileKind::recipe;
}

std::string to_string(FileKind k) {
  switch (k) {
    case FileKind::recipe: return "recipe";
    case FileKind::driver_manifest: return "driver manifest";
    case FileKind::node_inventory: return "node inventory";
  }
  return "?";
}

namespace {

bool check_inventory(const FileSource& files, const std::string& path, const toml::table& table,
                     const RecipeOptions& opts, Diagnostics& diags) {
  std::size_t before = diags.size();
  auto inv = load_node_inventory(files, path, table, diags);
  if (!inv) return false;  // unreadable; otherwise check what was read
  std::optional<LoadedRecipe> recipe;
  if (!inv->inventory.recipe.empty()) {
    std::string rpath = path_join(dir_name(path), inv->inventory.recipe);
    Diagnostics rdiags;
    RecipeOptions ropts = opts;
    ropts.check_references = false;  // the recipe's own check reports those
    recipe = load_recipe(files, rpath, ropts, rdiags);
    if (!recipe) {
      auto it = inv->positions.find("recipe");
      diags.error(it != inv->positions.end() ? it->second : SourcePos{path, 1, 1},
                  "recipe '" + rpath + "' cannot be used to check this inventory: it has " +
                      std::to_string(rdiags.size()) + " error(s) (run railyard check on it)");
    }
  }
  validate_inventory(*inv, recipe ? &recipe->recipe : nullptr, diags);
  return diags.size() == before;
}

}  // namespace

std::vector<CheckedFile> check_files(const FileSource& files, const std::vector<std::string>& paths,
                                     const RecipeOptions& opts, Diagnostics& diags) {
  std::vector<CheckedFile> out;
  for (const auto& path : paths) {
    CheckedFile cf{path};
    std::size_t before = diags.size();
    auto table = read_toml(files, path, diags);
    if (table) {
      cf.kind = detect_kind(path, *table);
      switch (cf.kind) {
        case FileKind::recipe: load_recipe(files, path, opts, diags); break;
        case FileKind::driver_manifest: load_driver_manifest(files, path, *table, diags); break;
        case FileKind::node_inventory: check_inventory(files, path, *table, opts, diags); break;
      }
    }
    cf.ok = diags.size() == before;
    out.push_back(cf);
  }
  return out;
}

}  // namespace railyard
