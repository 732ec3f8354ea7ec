// Test helpers: recipes loaded from inline text on top of a minimal valid base.
#pragma once

#include <optional>
#include <string>

#include "recipe_loader.h"

namespace railyard::test {

// A minimal valid recipe that test recipes extend: Debian bookworm, two rail subnets.
inline const char* const kBaseRecipe = R"(
[image]
suite = "bookworm"
[addressing]
subnets = ["198.18.0.0/24", "198.18.1.0/24"]
)";

struct LoadedText {
  Diagnostics diags;
  std::optional<LoadedRecipe> lr;
  const Recipe& recipe() const { return lr.value().recipe; }
};

inline LoadedText load_path(const FileSource& files, const std::string& path, bool references = false) {
  LoadedText out;
  RecipeOptions opts;
  opts.check_references = references;
  out.lr = load_recipe(files, path, opts, out.diags);
  return out;
}

// Recipe "r.toml": line 1 is `extends = "base.toml"`, `body` follows (a raw string starting
// with a newline, so its first visible line is line 2).
inline LoadedText load(const std::string& body) {
  MemorySource files;
  files.add("base.toml", kBaseRecipe);
  files.add("r.toml", "extends = \"base.toml\"" + body);
  return load_path(files, "r.toml");
}

// Recipe "r.toml" exactly as given, without the base.
inline LoadedText load_alone(const std::string& text) {
  MemorySource files;
  files.add("r.toml", text);
  return load_path(files, "r.toml");
}

}  // namespace railyard::test
