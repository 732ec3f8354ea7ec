// `railyard-firstboot verify`: after the join, and for as long as the node runs, is the fabric
// still what first boot applied and proved? Discovers again, plans again and verifies, with
// no change to anything, and exits 0 on a pass, 1 on a fail: fit to be Slurm's
// HealthCheckProgram and what railyard-verify.timer runs. A node that had joined and now
// fails (a rail link down, a pause storm, an NVMe-oF controller lost) is drained in Slurm
// with the failing checks, at most once per join.slurm.drain_interval_s.
#include <memory>
#include <CLI/CLI.hpp>
#include <ctime>
#include <filesystem>
#include <optional>
#include <iostream>

#include <spdlog/spdlog.h>

#include "checks/gpu_health.h"
#include "checks/ibverbs_data_path.h"
#include "commands.h"
#include "gpu/nvml.h"
#include "join/join.h"
#include "join_gate.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "kernel/root_files.h"
#include "kernel/rtnl_native.h"
#include "plan.h"
#include "report.h"
#include "objects/routing.h"
#include "verify/verify.h"
#include "version.h"

namespace railyard {

namespace {

constexpr const char* kVerifyReport = "/run/railyard/verify.json";
// When verify last drained the node (seconds since the epoch): the rate limit's memory. In
// /run, so that a reboot, which runs first boot again, starts afresh.
constexpr const char* kDrainStamp = "/run/railyard/verify-drained";

std::filesystem::path rooted(const std::string& root, const std::string& path) {
  return std::filesystem::path(root.empty() ? "/" : root) / path.substr(1);
}

long read_stamp(const std::string& root) {
  NativeFiles files;
  auto t = files.read_file(rooted(root, kDrainStamp).string());
  if (!t.ok()) return 0;
  try {
    return std::stol(*t);
  } catch (...) {
    return 0;
  }
}

// node_exporter's textfile for verify, beside first boot's railyard.prom: the result, when,
// and each failing check.
std::string verify_textfile(const Report& r, long now) {
  std::string out =
      "# HELP railyard_verify_pass 1 when every required check passed at the last railyard-firstboot verify.\n"
      "# TYPE railyard_verify_pass gauge\n"
      "railyard_verify_pass " +
      std::string(r.passed() ? "1" : "0") +
      "\n# HELP railyard_verify_timestamp_seconds When railyard-firstboot verify last ran.\n"
      "# TYPE railyard_verify_timestamp_seconds gauge\n"
      "railyard_verify_timestamp_seconds " +
      std::to_string(now) +
      "\n# HELP railyard_verify_check_failing A required check that failed at the last verify.\n"
      "# TYPE railyard_verify_check_failing gauge\n";
  for (const auto& c : r.checks)
    if (c.failing()) out += "railyard_verify_check_failing{check=\"" + c.name() + "\"} 1\n";
  return out;
}

int cmd_verify(const InputPaths& paths, const std::string& root, bool json) {
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  Report report;
  report.railyard_version = kVersion;
  Plan plan = make_plan(in->inventory, in->recipe, in->node);
  report.node = plan.node;
  report.recipe = plan.recipe;
  report.problems = plan.problems;
  if (plan.ok()) {
    NativeRtnl rtnl;
    NativeDcb dcb;
    NativeEthtool ethtool;
    NativeHost host(root);
    Kernel kernel{rtnl, dcb, ethtool, host};
    IbverbsDataPath rdma;
    // No LLDP listener: a switch speaks every 30 s, too seldom for a health check; first
    // boot proved the far ends, and a recabled port takes the link down first.
    // Routed rails: bgpd's sessions as they are now (first boot started it).
    std::optional<BgpBringUp> bgp;
    if (plan.bgp) {
      NativeBgp speaker;
      bgp.emplace();
      if (auto sessions = speaker.sessions(); sessions.ok()) bgp->sessions = *sessions;
      else bgp->error = sessions.error();
    }
    VerifyContext ctx{plan, in->inventory, kernel, rdma, real_clock(), nullptr, bgp ? &*bgp : nullptr};
    ctx.gpu_workloads = false;  // GPUDirect writes and all_reduce_perf: first boot's only
    std::optional<NvmlReading> nvml;
    if (checks::plans_gpu_health(plan)) nvml = read_nvml_bounded(plan.gpus, plan.selftest.check_timeout_ms);
    ctx.nvml = nvml ? &*nvml : nullptr;
    report.checks = verify(ctx);
  }
  const bool joined = std::filesystem::exists(rooted(root, kJoinedMarker));
  if (auto e = write_root_file(root, kVerifyReport, to_json(report).dump(2) + "\n", 0644); !e.empty())
    spdlog::warn("cannot write {}: {}", kVerifyReport, e);
  const long now = static_cast<long>(std::time(nullptr));
  if (!in->recipe.join.textfile_dir.empty())
    if (auto e = write_root_file(root, in->recipe.join.textfile_dir + "/railyard-verify.prom",
                                 verify_textfile(report, now), 0644);
        !e.empty())
      spdlog::warn("cannot write the node_exporter textfile: {}", e);
  if (json) std::cout << to_json(report).dump(2) << "\n";
  else std::cout << summary_text(report) << std::flush;
  for (const auto& c : report.checks)
    if (c.failing())
      spdlog::error("{}: {}: expected {}, observed {}", c.name(), to_string(c.status), c.expected, c.observed);
  if (report.passed()) return kExitOk;

  const SlurmSpec& slurm = in->recipe.slurm;
  if (!joined) {
    spdlog::info("the node has not joined ({} is absent): nothing to drain", kJoinedMarker);
  } else if (slurm.controller.empty() || !slurm.drain_on_fail) {
    spdlog::info("no Slurm drain ([join.slurm] controller and drain_on_fail)");
  } else if (long last = read_stamp(root); last > 0 && now - last < slurm.drain_interval_s) {
    spdlog::info("drained {} s ago: not again before join.slurm.drain_interval_s ({} s)", now - last,
                 slurm.drain_interval_s);
  } else {
    NativeJoinEffects effects;
    std::vector<JoinLine> log;
    SlurmOutcome s = slurm_after_selftest(report, slurm, root, effects, real_clock(), log);
    for (const auto& line : log)
      spdlog::log(line.level == JoinLine::Level::error ? spdlog::level::err : spdlog::level::info, "{}", line.text);
    if (s.ok)
      if (auto e = write_root_file(root, kDrainStamp, std::to_string(now) + "\n", 0644); !e.empty())
        spdlog::warn("cannot write {}: {}", kDrainStamp, e);
  }
  return kExitFailed;
}

const bool verify_registered = AgentCommands::add(50, [](CLI::App& app) {
  struct Options {
    std::string root = "/";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("verify",
                                 "Verify the node against its plan without changing anything (exit 0 pass, 1 fail); "
                                 "a joined node that fails is drained ([join.slurm])");
  sub->add_option("--root", opt->root, "Prefix of every file read and written (default /)");
  sub->add_flag("--json", opt->json, "The verification as a report (JSON) instead of the summary");
  return AgentCommands::Subcommand{
      sub, [opt](const AgentContext& ctx) { return cmd_verify(ctx.paths, opt->root, opt->json); }};
});

}  // namespace

}  // namespace railyard
