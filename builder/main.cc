// railyard: the host CLI. Parses arguments and hands off to one cmd_*.cc per subcommand.
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cache.h"
#include "commands.h"
#include "io/disk_source.h"
#include "subcommand.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace railyard;
  CLI::App app{"railyard: PXE images for GPU servers on a RoCEv2 fabric"};
  app.set_version_flag("--version", std::string("railyard ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // --drivers/--overlays may follow the subcommand
  CommonOptions common;
  app.add_option("--drivers", common.drivers_dir, "Driver manifests directory (default: drivers/ beside or above the recipe)");
  app.add_option("--overlays", common.overlays_dir, "Overlays directory (default: overlays/ beside or above the recipe)");

  std::vector<std::string> check_paths;
  bool quiet = false;
  auto* check = app.add_subcommand("check", "Validate recipes, driver manifests and node inventories");
  check->add_option("files", check_paths, "Files to check (default: the embedded default recipe)");
  check->add_flag("-q,--quiet", quiet, "Print only errors");

  std::string show_path;
  bool show_json = false;
  auto* show = app.add_subcommand("show", "Print a recipe resolved (extends applied, defaults filled)");
  show->add_option("recipe", show_path, "Recipe file (default: the embedded default recipe)");
  show->add_flag("--json", show_json, "Print JSON instead of TOML");

  std::string docs_what = "recipe";
  auto* docs = app.add_subcommand("docs", "Print a file format's reference as Markdown");
  docs->add_option("what", docs_what, "recipe, drivers or nodes");

  BuildOptions build_opt;
  auto* build = app.add_subcommand("build", "Build a recipe's PXE image, stage by stage, through the cache");
  build->add_option("recipe", build_opt.recipe, "Recipe file")->required();
  build->add_option("-o,--output", build_opt.out_dir, "Output directory (default: out/<recipe name>/)");
  build->add_option("--cache", build_opt.cache_dir,
                    "Stage cache (default: ${XDG_CACHE_HOME:-~/.cache}/railyard; /var/cache/railyard as root)");
  build->add_flag("--no-cache", build_opt.no_cache, "Neither use nor fill the stage cache");
  build->add_flag("--dry-run", build_opt.dry_run, "Print the stage plan with cache hits and misses; build nothing");
  build->add_flag("--explain", build_opt.explain, "With --dry-run: print what defines each stage's key");

  std::string cache_dir;
  bool cache_json = false;
  std::size_t keep = 1;
  auto* cache = app.add_subcommand("cache", "List or prune the stage cache");
  cache->require_subcommand(1);
  cache->add_option("--cache", cache_dir, "Stage cache (default as for build)");
  auto* cache_ls = cache->add_subcommand("ls", "List cache entries: stage, key, size, age");
  cache_ls->add_flag("--json", cache_json, "Print JSON");
  auto* cache_prune = cache->add_subcommand("prune", "Keep the newest entries per stage; remove the rest and tmp/");
  cache_prune->add_option("--keep", keep, "Entries to keep per stage")->default_val(1);
  bool prune_downloads = false;
  cache_prune->add_flag("--downloads", prune_downloads,
                        "Also remove downloads/ (fetched archives and keys, kept packages; fetched again when needed)");
  cache->fallthrough();  // --cache may follow ls/prune

  std::vector<Subcommand> registered;
  for (const auto& factory : registered_subcommands()) registered.push_back(factory(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  DiskSource disk;
  LayeredSource files(disk);
  files.add(kEmbeddedRecipePath, kEmbeddedRecipeText);
  for (const auto& sub : registered)
    if (*sub.app) return sub.run(CommandContext{files, common});
  if (*check) {
    if (check_paths.empty()) check_paths.push_back(kEmbeddedRecipePath);
    return run_check(files, check_paths, common, quiet);
  }
  if (*show) return run_show(files, show_path.empty() ? kEmbeddedRecipePath : show_path, common, show_json);
  if (*docs) return run_docs(docs_what);
  if (*build) return run_build(files, build_opt, common);
  if (*cache) {
    if (cache_dir.empty())
      cache_dir = default_cache_dir(::geteuid() == 0, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
    if (cache_dir.empty()) {
      std::cerr << "railyard cache: neither HOME nor XDG_CACHE_HOME is set; pass --cache DIR\n";
      return kExitBadInput;
    }
    return *cache_ls ? run_cache_ls(cache_dir, cache_json) : run_cache_prune(cache_dir, keep, prune_downloads);
  }
  return kExitBadInput;
}
