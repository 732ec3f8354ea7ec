// A malformed recipe never crashes the loader, and every error it reports has a position.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "recipe_loader.h"

using namespace railyard;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Loads `text` as a recipe and checks the diagnostics' invariants.
void load_and_check(const std::string& text) {
  MemorySource files;
  files.add("r.toml", text);
  Diagnostics diags;
  RecipeOptions opts;
  opts.check_references = false;
  std::optional<LoadedRecipe> lr;
  CHECK_NOTHROW(lr = load_recipe(files, "r.toml", opts, diags));
  CHECK(lr.has_value() == diags.empty());
  for (const auto& d : diags.items()) {
    CHECK(d.pos.file == "r.toml");
    CHECK(d.pos.line >= 1);
    CHECK(!d.message.empty());
  }
}

const char* kRecipes[] = {"recipes/qemu-virt.toml", "recipes/base/nvidia-roce-noble.toml"};

}  // namespace

TEST_CASE("every prefix of a shipped recipe loads without crashing") {
  for (const char* rel : kRecipes) {
    std::string text = slurp(std::string(RAILYARD_SOURCE_DIR) + "/" + rel);
    REQUIRE(!text.empty());
    for (std::size_t cut = 0; cut <= text.size(); ++cut) load_and_check(text.substr(0, cut));
  }
}

TEST_CASE("a shipped recipe with any one line removed or doubled loads without crashing") {
  std::string text = slurp(std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml");
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (std::size_t skip = 0; skip < lines.size(); ++skip) {
    std::string removed, doubled;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i != skip) removed += lines[i] + "\n";
      doubled += lines[i] + "\n";
      if (i == skip) doubled += lines[i] + "\n";
    }
    load_and_check(removed);
    load_and_check(doubled);
  }
}

TEST_CASE("every value of a shipped recipe replaced by each wrong type is an error, not a crash") {
  std::string text = slurp(std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml");
  const char* replacements[] = {"1",          "-1",        "99999999999999999999", "\"text\"", "true", "[]",
                                "[1, \"a\"]", "{ a = 1 }", "1979-05-27",           "3.5",      "\"\"", "[[]]"};
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto eq = lines[i].find(" = ");
    if (eq == std::string::npos || lines[i][0] == '#') continue;
    for (const char* r : replacements) {
      std::string mutated;
      for (std::size_t j = 0; j < lines.size(); ++j)
        mutated += (j == i ? lines[j].substr(0, eq + 3) + r : lines[j]) + "\n";
      load_and_check(mutated);
    }
  }
}

TEST_CASE("binary garbage and deep nesting are errors, not crashes") {
  load_and_check(std::string("\0\xff\xfe schema = 1", 14));
  load_and_check(std::string(5000, '['));
  load_and_check("a = " + std::string(2000, '[') + std::string(2000, ']'));
  load_and_check("schema = 1\n[image]\nsuite = \"bookworm\"\n[image]\nsuite = \"trixie\"\n");  // table twice
}
