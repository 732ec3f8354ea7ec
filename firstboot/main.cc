// railyard-firstboot: the first-boot agent inside the image. Phases live in discover/,
// apply/, verify/ and join/; this file only parses arguments and dispatches.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/cli.h"
#include "io/log.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace railyard;
  logging::setup("railyard-firstboot");
  CLI::App app{"railyard-firstboot: configure, verify and join a node on its first boot", "railyard-firstboot"};
  app.set_version_flag("--version", std::string("railyard-firstboot ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough();
  logging::Verbosity verbosity = logging::Verbosity::normal;
  add_verbosity_flags(app, verbosity);
  InputPaths paths;
  auto* recipe_opt = app.add_option("--recipe", paths.recipe, "Recipe (default /etc/railyard/recipe.toml)");
  app.add_option("--node", paths.node, "Node identity (default /etc/railyard/node.toml)");
  bool json = false;

  auto* check = app.add_subcommand("check", "Validate the recipe and node identity this node boots with");
  auto* discover = app.add_subcommand("discover", "Print the GPUs, NICs, RDMA devices and rails of this node");
  discover->add_flag("--json", json, "JSON (the inventory contract) instead of a table");
  auto* plan = app.add_subcommand("plan", "Print what first boot would do on this node");
  plan->add_flag("--json", json, "JSON instead of text");
  std::string root = "/";
  bool dry_run = false;
  auto* run = app.add_subcommand("run", "Discover, plan, apply, verify, report and join");
  auto* run_root = run->add_option("--root", root,
                                   "Prefix of every file written (default /; with --dry-run, a new "
                                   "temporary directory)");
  run->add_flag("--dry-run", dry_run, "Change no kernel state; write the rendered files under --root");
  run->add_flag("--json", json, "Print the plan as JSON");
  auto* verify = app.add_subcommand("verify",
                                    "Verify the node against its plan without changing anything (exit 0 pass, 1 fail); "
                                    "a joined node that fails is drained ([join.slurm])");
  verify->add_option("--root", root, "Prefix of every file read and written (default /)");
  verify->add_flag("--json", json, "The verification as a report (JSON) instead of the summary");
  auto* target = app.add_subcommand("target", "Lab storage target: serve the recipe's NVMe-oF targets on its rails");
  target->add_option("--root", root, "Prefix of every file written (default /)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(app, e, kExitBadInput);
  }
  // The agent's lines name the program only: on a node there is one agent, and the journal
  // says which of its units wrote them.
  logging::set_verbosity(verbosity);
  paths.recipe_given = recipe_opt->count() > 0;
  if (*check) return cmd_check(paths);
  if (*discover) return cmd_discover(paths, json);
  if (*plan) return cmd_plan(paths, json);
  if (*run && dry_run && run_root->count() == 0) {
    // A preview never changes the live node: without --root, its files go somewhere new.
    auto dir = make_preview_root();
    if (!dir.ok()) {
      spdlog::error("--dry-run without --root: {}", dir.error());
      return kExitFailed;
    }
    root = *dir;
    spdlog::info("dry run: no --root given; the rendered files go under {}", root);
  }
  if (*run) return cmd_run(paths, root, dry_run, json);
  if (*verify) return cmd_verify(paths, root, json);
  if (*target) return cmd_target(paths, root);
  return kExitBadInput;
}
