#include "stages/run.h"

#include <sys/utsname.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include <spdlog/spdlog.h>

#include "apply/apply.h"
#include "checks/gpu_health.h"
#include "checks/hardware.h"
#include "checks/ibverbs_data_path.h"
#include "checks/image_modules.h"
#include "checks/lldp.h"
#include "checks/peer_probe.h"
#include "clock.h"
#include "discover/default_route.h"
#include "discover/discover.h"
#include "kernel/bgp.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "kernel/lldp_listener.h"
#include "kernel/root_files.h"
#include "kernel/rtnl_native.h"
#include "management.h"
#include "objects/modules.h"
#include "objects/nvmeof.h"
#include "verify/verify.h"
#include "version.h"

namespace railyard {

struct NativeKernel {
  explicit NativeKernel(const std::string& root) : host(root) {}
  NativeRtnl rtnl;
  NativeDcb dcb;
  NativeEthtool ethtool;
  NativeHost host;
  Kernel kernel{rtnl, dcb, ethtool, host};
};

namespace {

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string read_token(const std::string& path) {
  NativeFiles files;
  auto t = files.read_file(path);
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
  NativeFiles files;
  if (auto id = files.read_file("/proc/sys/kernel/random/boot_id"); id.ok()) h.boot_id = *id;
  h.drivers = recipe.image.drivers;
  return h;
}

bool planned(const RunContext& ctx) { return ctx.plan.ok(); }
bool routed(const RunContext& ctx) { return ctx.plan.ok() && ctx.plan.bgp.has_value(); }

// discover: the recipe and the node identity read, the devices waited for (the recipe's
// modules loaded meanwhile, never in a preview: it changes nothing) and discovered. The wait
// stands before everything, in a preview too: a plan made before the NICs were renamed would
// name interfaces that are gone.
Status discover_stage(RunContext& ctx) {
  NativeModules preload_modules;
  std::optional<ModulePreload> preload;
  ctx.in = load_inputs(ctx.paths, ctx.exit_code, true, nullptr, [&](const Recipe& recipe) {
    if (!ctx.preview) preload.emplace(preload_modules, recipe_modules(recipe));
  });
  if (preload) ctx.preloaded = preload->finish();
  if (!ctx.in) return Status::fail(EINVAL, "nothing to plan from (said above)");
  const CheckResult devices = devices_check(*ctx.in->wait, ctx.in->recipe.hardware);
  // In a run the check is logged with the others; a preview has no report to show it.
  if (ctx.preview)
    spdlog::log(devices.status == CheckStatus::pass ? spdlog::level::info : spdlog::level::err, "devices: {}: {}{}",
                to_string(devices.status), devices.observed, devices.detail.empty() ? "" : " (" + devices.detail + ")");
  ctx.report.checks.push_back(devices);
  return success();
}

Status plan_stage(RunContext& ctx) {
  ctx.plan = make_plan(ctx.in->inventory, ctx.in->recipe, ctx.in->node);
  if (ctx.preview) return success();
  Report& report = ctx.report;
  report.node = ctx.plan.node;
  report.recipe = ctx.plan.recipe;
  report.host = host_info(ctx.in->recipe);
  report.plan = to_json(ctx.plan);
  report.problems = ctx.plan.problems;
  report.inventory = to_json(ctx.in->inventory);
  return success();
}

// apply: the node's own objects. The far ends of the rails are listened for from now on,
// while everything after runs.
Status apply_stage(RunContext& ctx) {
  if (ctx.plan.lldp.wait_s > 0)
    ctx.lldp =
        std::make_unique<LldpListener>(checks::lldp_listen_ports(ctx.plan), std::chrono::seconds(ctx.plan.lldp.wait_s));
  ctx.kernel = std::make_unique<NativeKernel>(ctx.root);
  ctx.changes = apply_node(ctx.plan, ctx.kernel->kernel);
  merge_preloaded(ctx.changes, ctx.preloaded);
  return success();
}

// routing: FRR's files, each a change of its own, bgpd's sessions up and the rails' tables
// filled from them, before anything crosses the fabric (the storage targets are reached
// through the leaves). bgpd restarts only when a file changed, so that a second run leaves
// the sessions, and the storage traffic over them, alone.
Status routing_stage(RunContext& ctx) {
  const Plan& plan = ctx.plan;
  bool frr_changed = false;
  for (const auto& f : plan.files) {
    if (f.path.rfind("/etc/frr/", 0) != 0) continue;
    std::string object = "file " + f.path;
    if (root_file_matches(ctx.root, f.path, f.content, f.mode)) {
      ctx.changes.push_back({object, ChangeOutcome::unchanged, "as planned", "as planned", ""});
    } else if (auto err = write_root_file(ctx.root, f.path, f.content, f.mode); !err.empty()) {
      ctx.changes.push_back({object, ChangeOutcome::failed, "", "as planned", err});
    } else {
      ctx.changes.push_back({object, ChangeOutcome::changed, "other", "as planned", ""});
      frr_changed = true;
    }
  }
  NativeBgp speaker("", plan.bgp->session_wait_s * 1000);
  ctx.bgp = bring_up_bgp(plan, speaker, real_clock(), frr_changed);
  if (!ctx.bgp->error.empty()) spdlog::error("bgp: {}", ctx.bgp->error);
  else
    spdlog::info("bgp: {} after {} ms", ctx.bgp->all_up ? "every rail's session Established" : "not every session up",
                 ctx.bgp->waited_ms);
  apply_rail_tables(plan, ctx.bgp->sessions, ctx.kernel->kernel, ctx.changes);
  return success();
}

// storage: NVMe-oF connected, and retried within selftest.storage_wait_s, before the node
// settles: the inventory settle returns, which verify reads, must list the controllers the
// retries connected.
Status storage_stage(RunContext& ctx) {
  apply_storage(ctx.plan, ctx.kernel->kernel, ctx.changes);
  retry_nvmeof(ctx.plan, ctx.kernel->kernel, ctx.changes, std::chrono::seconds(ctx.plan.selftest.storage_wait_s),
               std::chrono::seconds(2));
  return success();
}

// settle: links and RDMA ports come up asynchronously after apply: rediscovered until every
// rail's link is up and its RDMA port ACTIVE, or the plan's link_wait_s has passed. Then the
// files rendered from the node as it is now (the NCCL profile names GID indices, which exist
// only once the rails are up), so that every run writes the same bytes.
Status settle_stage(RunContext& ctx) {
  const Plan& plan = ctx.plan;
  Clock& clock = real_clock();
  auto deadline = clock.now() + std::chrono::seconds(plan.selftest.link_wait_s);
  for (;;) {
    auto td = std::chrono::steady_clock::now();
    ctx.now = discover();
    const auto discover_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - td).count();
    mark_management(ctx.now, ctx.in->recipe.management, ctx.in->node, default_route_ifname());
    bool ready = true;
    for (const auto& rail : plan.rails) {
      const Nic* nic = ctx.now.nic(rail.ifname);
      const RdmaDevice* dev = checks::rail_rdma_device(ctx.now, rail);
      const RdmaPort* port = dev ? dev->port(rail.rdma_port) : nullptr;
      ready = ready && nic && nic->operstate == "up" && port && port->state == "ACTIVE";
    }
    spdlog::debug("settle: rediscovered in {} ms; rails {}", discover_ms, ready ? "up and ACTIVE" : "not all up yet");
    if (ready || clock.now() >= deadline) break;
    clock.sleep(std::chrono::milliseconds(500));
  }
  if (Status s = write_plan_files(settled_plan(plan, ctx.now, ctx.in->recipe), ctx.root); !s.ok())
    ctx.changes.push_back({"files", ChangeOutcome::failed, "", "", s.error()});
  ctx.report.changes = to_json(ctx.changes);
  std::cout << "apply:\n";
  print_changes(ctx.changes);
  for (const auto& c : ctx.changes)
    if (c.outcome == ChangeOutcome::failed)
      ctx.report.checks.push_back({CheckId::apply(c.object), CheckStatus::fail, c.after, c.before, c.detail, true});
  ctx.report.inventory = to_json(ctx.now);
  return success();
}

// gpu: what the GPU checks read, each bounded: NVML, and NCCL's all_reduce_perf.
Status gpu_stage(RunContext& ctx) {
  const Plan& plan = ctx.plan;
  if (checks::plans_gpu_health(plan)) ctx.nvml = read_nvml_bounded(plan.gpus, plan.selftest.check_timeout_ms);
  if (checks::plans_nccl(plan))
    ctx.nccl = run_all_reduce_perf(plan.selftest.nccl_all_reduce_perf, static_cast<int>(plan.gpus.size()),
                                   plan.selftest.nccl_timeout_s);
  return success();
}

Status verify_stage(RunContext& ctx) {
  IbverbsDataPath rdma;
  VerifyContext vc{ctx.plan,     ctx.now,        ctx.kernel->kernel,           rdma,
                   real_clock(), ctx.lldp.get(), ctx.bgp ? &*ctx.bgp : nullptr};
  vc.nvml = ctx.nvml ? &*ctx.nvml : nullptr;
  vc.nccl = ctx.nccl ? &*ctx.nccl : nullptr;
  checks::PeerProbes peers(checks::ibverbs_writers());
  vc.peers = &peers;
  auto results = verify(vc);
  if (ctx.lldp) ctx.report.lldp = checks::lldp_report(ctx.plan, *ctx.lldp);
  ctx.report.peers = checks::peer_report(peers);
  ctx.lldp.reset();  // heard all it will be asked for
  ctx.report.checks.insert(ctx.report.checks.end(), results.begin(), results.end());
  return success();
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

// report: the image's modules, the summary on the console, the failures in the journal, and
// the report written locally. This is the one copy written before joining: the on_fail
// command reads it, and a join unit or a Slurm controller that hangs the boot must not leave
// the node without one. The join stage writes it again, whole, at the end.
Status report_stage(RunContext& ctx) {
  NativeHost host(ctx.root);
  ctx.report.modules = image_modules(host.files, host.modules);
  std::cout << summary_text(ctx.report) << std::flush;
  log_checks(ctx.report);
  write_report_before_join(ctx.report, ctx.root, ctx.joined);
  return success();
}

Status join_stage(RunContext& ctx) {
  NativeJoinEffects effects;
  join_and_post(ctx.report, ctx.in->recipe.join, ctx.root, effects, read_token, real_clock(), ctx.in->recipe.slurm,
                ctx.joined);
  for (const auto& line : ctx.joined.log)
    spdlog::log(line.level == JoinLine::Level::error     ? spdlog::level::err
                : line.level == JoinLine::Level::warning ? spdlog::level::warn
                                                         : spdlog::level::info,
                "{}", line.text);
  std::cout << result_marker(ctx.report) << std::endl;
  ctx.exit_code = ctx.joined.joined ? kExitOk : kExitFailed;
  return success();
}

// The phases keep the names reports have always had (discover, plan, apply, bgp, verify):
// routing is timed as "bgp", storage and settle count to "apply", gpu to "verify", and the
// report and the join are not phases (the join record has its own waits).
const Stage kFirstBoot[] = {
    {"discover", "discover", nullptr, discover_stage},
    {"plan", "plan", nullptr, plan_stage},
    {"apply", "apply", planned, apply_stage},
    {"routing", "bgp", routed, routing_stage},
    {"storage", "apply", planned, storage_stage},
    {"settle", "apply", planned, settle_stage},
    {"gpu", "verify", planned, gpu_stage},
    {"verify", "verify", planned, verify_stage},
    {"report", "", nullptr, report_stage},
    {"join", "", nullptr, join_stage},
};

}  // namespace

RunContext::RunContext(InputPaths p, std::string r, bool dry) : paths(std::move(p)), root(std::move(r)), preview(dry) {
  report.started_at = now_utc();
  report.railyard_version = kVersion;
}

RunContext::~RunContext() = default;

std::span<const Stage> first_boot_stages() { return kFirstBoot; }
std::span<const Stage> preview_stages() { return std::span<const Stage>(kFirstBoot).first(2); }  // discover, plan

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

}  // namespace railyard
