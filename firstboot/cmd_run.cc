// `railyard-firstboot run`: discover, plan, apply, verify, report, join. With --dry-run it
// changes no kernel state (the dry-run kernel records what it would do), still writes the
// rendered files under --root, and prints the plan.
#include <CLI/CLI.hpp>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "apply/apply.h"
#include "checks/gpu_health.h"
#include "checks/hardware.h"
#include "checks/ibverbs_data_path.h"
#include "checks/image_modules.h"
#include "checks/lldp.h"
#include "clock.h"
#include "commands.h"
#include "discover/default_route.h"
#include "discover/discover.h"
#include "gpu/nccl.h"
#include "gpu/nvml.h"
#include "join/join.h"
#include "kernel/dcb_native.h"
#include "kernel/dry_run_dcb.h"
#include "kernel/dry_run_ethtool.h"
#include "kernel/dry_run_host.h"
#include "kernel/dry_run_rtnl.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "kernel/bgp.h"
#include "kernel/lldp_listener.h"
#include "kernel/root_files.h"
#include "kernel/rtnl_native.h"
#include "management.h"
#include "objects/modules.h"
#include "objects/nvmeof.h"
#include "objects/routing.h"
#include "plan.h"
#include "report.h"
#include "verify/verify.h"
#include "version.h"

namespace railyard {

namespace {

using Steady = std::chrono::steady_clock;

double ms_since(Steady::time_point t) { return std::chrono::duration<double, std::milli>(Steady::now() - t).count(); }

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string read_token(const std::string& path) {
  NativeHost host;
  auto t = host.read_file(path);
  return t.ok() ? *t : "";
}

// The running kernel, this boot and the image's driver releases: what fleets are grouped by.
HostInfo host_info(const Recipe& recipe) {
  HostInfo h;
  utsname u{};
  if (::uname(&u) == 0) {
    h.hostname = u.nodename;
    h.kernel = u.release;
  }
  NativeHost host;
  if (auto id = host.read_file("/proc/sys/kernel/random/boot_id"); id.ok()) h.boot_id = *id;
  h.drivers = recipe.image.drivers;
  return h;
}

Status write_plan_files(const Plan& plan, const std::string& root) {
  for (const auto& f : plan.files)
    if (auto err = write_root_file(root, f.path, f.content, f.mode); !err.empty()) return Status::fail(EIO, err);
  return success();
}

void print_changes(const std::vector<Change>& changes) {
  for (const auto& c : changes)
    if (c.outcome != ChangeOutcome::unchanged)
      std::cout << "  " << to_string(c.outcome) << "  " << c.object
                << (c.before.empty() && c.after.empty() ? "" : ": " + c.before + " -> " + c.after)
                << (c.detail.empty() ? "" : " (" + c.detail + ")") << "\n";
  std::size_t unchanged = 0;
  for (const auto& c : changes) unchanged += c.outcome == ChangeOutcome::unchanged;
  std::cout << "  " << unchanged << " of " << changes.size() << " objects already as planned\n";
}

int dry_run(const Inputs& in, const Plan& plan, const std::string& root, bool json) {
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
  (void)in;
  return plan.ok() ? kExitOk : kExitFailed;
}

// Links and RDMA ports come up asynchronously after apply: rediscover until every rail's
// link is up and its RDMA port ACTIVE, or the plan's link_wait_s has passed.
Inventory settle(const Plan& plan, const Inputs& in, Clock& clock) {
  auto deadline = clock.now() + std::chrono::seconds(plan.selftest.link_wait_s);
  for (;;) {
    auto td = Steady::now();
    Inventory now = discover();
    const double discover_ms = ms_since(td);
    mark_management(now, in.recipe.management, in.node, default_route_ifname());
    bool ready = true;
    for (const auto& rail : plan.rails) {
      const Nic* nic = now.nic(rail.ifname);
      const RdmaDevice* dev = checks::rail_rdma_device(now, rail);
      const RdmaPort* port = dev ? dev->port(rail.rdma_port) : nullptr;
      ready = ready && nic && nic->operstate == "up" && port && port->state == "ACTIVE";
    }
    spdlog::debug("settle: rediscovered in {:.0f} ms; rails {}", discover_ms,
                  ready ? "up and ACTIVE" : "not all up yet");
    if (ready || clock.now() >= deadline) return now;
    clock.sleep(std::chrono::milliseconds(500));
  }
}

// The journal's view of the self-test: each check that failed an error, each warning a
// warning, so that `journalctl -p err -u railyard-firstboot` lists exactly the failures; the
// summary on standard output stays for the console.
void log_checks(const Report& report) {
  for (const auto& c : report.checks) {
    const bool failing = c.failing();
    if (!failing && c.status != CheckStatus::fail && c.status != CheckStatus::warn) continue;
    std::string text = c.name() + ": " + to_string(c.status) + ": expected " + c.expected + ", observed " + c.observed;
    if (!c.detail.empty()) text += " (" + c.detail + ")";
    if (!failing && c.status == CheckStatus::fail) text += " [not required]";
    spdlog::log(failing ? spdlog::level::err : spdlog::level::warn, "{}", text);
  }
}

void log_join(const JoinOutcome& joined) {
  for (const auto& line : joined.log)
    spdlog::log(line.level == JoinLine::Level::error     ? spdlog::level::err
                : line.level == JoinLine::Level::warning ? spdlog::level::warn
                                                         : spdlog::level::info,
                "{}", line.text);
}

Outcome<std::string> make_preview_root() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/railyard-dry-run.XXXXXX";
  if (!::mkdtemp(templ.data())) return Outcome<std::string>::from_errno(errno, "mkdtemp " + templ);
  return templ;
}

int cmd_run(const InputPaths& paths, const std::string& root, bool dry, bool json) {
  Report report;
  report.started_at = now_utc();
  report.railyard_version = kVersion;
  auto t = Steady::now();
  int rc = kExitOk;
  // The wait for devices stands before everything, in a preview too: a plan made before the
  // NICs were renamed would name interfaces that are gone. A run loads the recipe's modules
  // meanwhile (never a preview: it changes nothing).
  NativeHost preload_host(root);
  std::optional<ModulePreload> preload;
  auto in = load_inputs(paths, rc, true, nullptr, [&](const Recipe& recipe) {
    if (!dry) preload.emplace(preload_host, recipe_modules(recipe));
  });
  std::vector<Change> preloaded = preload ? preload->finish() : std::vector<Change>{};
  if (!in) return rc;
  report.phases.push_back({"discover", ms_since(t)});
  const CheckResult devices = devices_check(*in->wait, in->recipe.hardware);
  // In a run the check is logged with the others; a preview has no report to show it.
  if (dry)
    spdlog::log(devices.status == CheckStatus::pass ? spdlog::level::info : spdlog::level::err, "devices: {}: {}{}",
                to_string(devices.status), devices.observed, devices.detail.empty() ? "" : " (" + devices.detail + ")");
  report.checks.push_back(devices);

  t = Steady::now();
  Plan plan = make_plan(in->inventory, in->recipe, in->node);
  report.phases.push_back({"plan", ms_since(t)});
  if (dry) return dry_run(*in, plan, root, json);

  report.node = plan.node;
  report.recipe = plan.recipe;
  report.host = host_info(in->recipe);
  report.plan = to_json(plan);
  report.problems = plan.problems;
  report.inventory = to_json(in->inventory);

  if (plan.ok()) {
    // The far ends of the rails: listened for from now on, while apply runs.
    std::unique_ptr<LldpListener> lldp;
    if (plan.lldp.wait_s > 0)
      lldp = std::make_unique<LldpListener>(checks::lldp_listen_ports(plan), std::chrono::seconds(plan.lldp.wait_s));
    t = Steady::now();
    NativeRtnl rtnl;
    NativeDcb dcb;
    NativeEthtool ethtool;
    NativeHost host(root);
    Kernel kernel{rtnl, dcb, ethtool, host};
    std::vector<Change> changes = apply_plan(plan, kernel);
    merge_preloaded(changes, preloaded);
    // Routed rails: bgpd configured and its sessions up before anything crosses the fabric
    // (the storage targets are reached through the leaves).
    std::optional<BgpBringUp> bgp;
    double bgp_ms = 0;
    if (plan.bgp) {
      auto tb = Steady::now();
      // FRR's files, each a change of its own: bgpd restarts only when one changed, so that a
      // second run leaves the sessions, and the storage traffic over them, alone.
      bool frr_changed = false;
      for (const auto& f : plan.files) {
        if (f.path.rfind("/etc/frr/", 0) != 0) continue;
        std::string object = "file " + f.path;
        if (root_file_matches(root, f.path, f.content, f.mode)) {
          changes.push_back({object, ChangeOutcome::unchanged, "as planned", "as planned", ""});
        } else if (auto err = write_root_file(root, f.path, f.content, f.mode); !err.empty()) {
          changes.push_back({object, ChangeOutcome::failed, "", "as planned", err});
        } else {
          changes.push_back({object, ChangeOutcome::changed, "other", "as planned", ""});
          frr_changed = true;
        }
      }
      NativeBgp speaker("", plan.bgp->session_wait_s * 1000);
      bgp = bring_up_bgp(plan, speaker, real_clock(), frr_changed);
      if (!bgp->error.empty()) spdlog::error("bgp: {}", bgp->error);
      else
        spdlog::info("bgp: {} after {} ms", bgp->all_up ? "every rail's session Established" : "not every session up",
                     bgp->waited_ms);
      apply_rail_tables(plan, bgp->sessions, kernel, changes);
      bgp_ms = ms_since(tb);
      apply_nvmeof(plan, kernel, changes);
    }
    // Before settling: the inventory settle returns, which verify reads, must list the
    // controllers the retries connected.
    auto ts = Steady::now();
    retry_nvmeof(plan, kernel, changes, std::chrono::seconds(plan.selftest.storage_wait_s), std::chrono::seconds(2));
    spdlog::debug("apply: NVMe-oF retries took {:.0f} ms", ms_since(ts));
    ts = Steady::now();
    Inventory now = settle(plan, *in, real_clock());  // what the node is after apply
    spdlog::debug("apply: settling took {:.0f} ms", ms_since(ts));
    // The NCCL profile names GID indices, which exist only once the rails are up: render
    // the files from the node as it is now, so that every run writes the same bytes.
    if (Status s = write_plan_files(settled_plan(plan, now, in->recipe), root); !s.ok())
      changes.push_back({"files", ChangeOutcome::failed, "", "", s.error()});
    report.changes = to_json(changes);
    report.phases.push_back({"apply", ms_since(t) - bgp_ms});
    if (bgp) report.phases.push_back({"bgp", bgp_ms});
    std::cout << "apply:\n";
    print_changes(changes);
    for (const auto& c : changes)
      if (c.outcome == ChangeOutcome::failed)
        report.checks.push_back({CheckId::apply(c.object), CheckStatus::fail, c.after, c.before, c.detail, true});

    t = Steady::now();
    report.inventory = to_json(now);
    IbverbsDataPath rdma;
    VerifyContext ctx{plan, now, kernel, rdma, real_clock(), lldp.get(), bgp ? &*bgp : nullptr};
    std::optional<NvmlReading> nvml;
    if (checks::plans_gpu_health(plan)) nvml = read_nvml_bounded(plan.gpus, plan.selftest.check_timeout_ms);
    ctx.nvml = nvml ? &*nvml : nullptr;
    std::optional<NcclRun> nccl;
    if (checks::plans_nccl(plan))
      nccl = run_all_reduce_perf(plan.selftest.nccl_all_reduce_perf, static_cast<int>(plan.gpus.size()),
                                 plan.selftest.nccl_timeout_s);
    ctx.nccl = nccl ? &*nccl : nullptr;
    auto results = verify(ctx);
    if (lldp) report.lldp = checks::lldp_report(plan, *lldp);
    report.checks.insert(report.checks.end(), results.begin(), results.end());
    report.phases.push_back({"verify", ms_since(t)});
  }

  {
    NativeHost host(root);
    report.modules = image_modules(host);
  }

  t = Steady::now();
  NativeJoinEffects effects;
  std::cout << summary_text(report) << std::flush;
  log_checks(report);
  JoinOutcome joined =
      report_and_join(report, in->recipe.join, root, effects, read_token, real_clock(), in->recipe.slurm);
  log_join(joined);
  std::cout << result_marker(report) << std::endl;
  return joined.joined ? kExitOk : kExitFailed;
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
  return cmd_run(paths, opt.root, opt.dry_run, opt.json);
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
