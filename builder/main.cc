// railyard: the host CLI. Parses arguments and hands off to one cmd_*.cc per subcommand.
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "io/disk_source.h"
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  DiskSource disk;
  LayeredSource files(disk);
  files.add(kEmbeddedRecipePath, kEmbeddedRecipeText);
  if (*check) {
    if (check_paths.empty()) check_paths.push_back(kEmbeddedRecipePath);
    return run_check(files, check_paths, common, quiet);
  }
  if (*show) return run_show(files, show_path.empty() ? kEmbeddedRecipePath : show_path, common, show_json);
  if (*docs) return run_docs(docs_what);
  return kExitBadInput;
}
