// The `railyard` subcommands; each lives in its own cmd_*.cc file.
#pragma once

#include <string>
#include <vector>

#include "recipe_loader.h"
#include "source.h"

namespace railyard {

// Exit codes shared by every subcommand (ARCHITECTURE.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

// The default recipe compiled into the binary (recipes/qemu-virt.toml) and the path it is served at.
extern const char* const kEmbeddedRecipeText;
inline constexpr const char* kEmbeddedRecipePath = "<embedded>/qemu-virt.toml";

struct CommonOptions {
  std::string drivers_dir;
  std::string overlays_dir;
  RecipeOptions recipe_options() const { return {true, drivers_dir, overlays_dir}; }
};

int run_check(const FileSource& files, const std::vector<std::string>& paths, const CommonOptions& common, bool json);
int run_show(const FileSource& files, const std::string& recipe_path, const CommonOptions& common, bool json);
int run_docs(const std::string& what);

struct BuildOptions {
  std::string recipe;
  std::string out_dir;    // "" = out/<recipe name>/
  std::string cache_dir;  // "" = default_cache_dir()
  bool no_cache = false;
  bool dry_run = false;
  bool explain = false;  // with --dry-run: each stage's canonical inputs
};
int run_build(const FileSource& files, const BuildOptions& opt, const CommonOptions& common);
// `cache_dir` resolved by the caller (--cache or the default).
int run_cache_ls(const std::string& cache_dir, bool json);
int run_cache_prune(const std::string& cache_dir, std::size_t keep, bool downloads);

}  // namespace railyard
