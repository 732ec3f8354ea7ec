// `railyard-firstboot run`: first boot's stages (stages/run.cc), from discovering the node to
// joining the cluster. With --dry-run it changes no kernel state (the dry-run kernel records
// what it would do), still writes the rendered files under --root, and prints the plan.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "apply/apply.h"
#include "commands.h"
#include "kernel/dcb_native.h"
#include "kernel/dry_run_dcb.h"
#include "kernel/dry_run_ethtool.h"
#include "kernel/dry_run_host.h"
#include "kernel/dry_run_rtnl.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "kernel/rtnl_native.h"
#include "stages/run.h"

namespace railyard {

namespace {

int dry_run(const Plan& plan, const std::string& root, bool json) {
  NativeRtnl rtnl;
  NativeDcb dcb;
  NativeEthtool ethtool;
  NativeHost host(root);
  std::vector<std::string> log;
  DryRunRtnl dry_rtnl(rtnl, log);
  DryRunDcb dry_dcb(dcb, log);
  DryRunEthtool dry_ethtool(ethtool, log);
  DryRunHost dry_host(host, log);
  Kernel kernel{dry_rtnl, dry_dcb, dry_ethtool, dry_host};
  std::vector<Change> changes = apply_plan(plan, kernel);
  if (plan.ok())
    if (Status s = write_plan_files(plan, root); !s.ok()) {
      spdlog::error("{}", s.error());
      return kExitFailed;
    }
  if (json) {
    auto j = to_json(plan);
    j["dry_run"] = {{"changes", to_json(changes)}, {"log", log}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << to_text(plan) << "dry run (nothing changed in the kernel):\n";
    print_changes(changes);
  }
  return plan.ok() ? kExitOk : kExitFailed;
}

Outcome<std::string> make_preview_root() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/railyard-dry-run.XXXXXX";
  if (!::mkdtemp(templ.data())) return Outcome<std::string>::from_errno(errno, "mkdtemp " + templ);
  return templ;
}

struct RunOptions {
  std::string root = "/";
  bool dry_run = false;
  bool json = false;
};

int run_with(const InputPaths& paths, RunOptions opt, bool root_given) {
  if (opt.dry_run && !root_given) {
    // A preview never changes the live node: without --root, its files go somewhere new.
    auto dir = make_preview_root();
    if (!dir.ok()) {
      spdlog::error("--dry-run without --root: {}", dir.error());
      return kExitFailed;
    }
    opt.root = *dir;
    spdlog::info("dry run: no --root given; the rendered files go under {}", opt.root);
  }
  RunContext ctx(paths, opt.root, opt.dry_run);
  if (Status s = run_stages(opt.dry_run ? preview_stages() : first_boot_stages(), ctx); !s.ok()) {
    spdlog::error("{}", s.error());
    return ctx.exit_code != kExitOk ? ctx.exit_code : kExitFailed;
  }
  return opt.dry_run ? dry_run(ctx.plan, opt.root, opt.json) : ctx.exit_code;
}

const bool run_registered = AgentCommands::add(40, [](CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand("run", "Discover, plan, apply, verify, report and join");
  auto* root = sub->add_option("--root", opt->root,
                               "Prefix of every file written (default /; with --dry-run, a new "
                               "temporary directory)");
  sub->add_flag("--dry-run", opt->dry_run, "Change no kernel state; write the rendered files under --root");
  sub->add_flag("--json", opt->json, "Print the plan as JSON");
  return AgentCommands::Subcommand{
      sub, [opt, root](const AgentContext& ctx) { return run_with(ctx.paths, *opt, root->count() > 0); }};
});

}  // namespace

}  // namespace railyard
