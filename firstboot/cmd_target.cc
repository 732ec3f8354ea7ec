// `railyard-firstboot target`: the storage-target role of a lab VM (kernel command line
// railyard.role=storage-target). Brings up the recipe's storage rails the way a node's
// appliers do, then exports a namespace per [[nvmeof]] target through nvmet. Idempotent;
// the outcome goes to /var/lib/railyard/target.json and the last console line.
#include <memory>
#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include <spdlog/spdlog.h>

#include "apply/apply.h"
#include "commands.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "kernel/root_files.h"
#include "kernel/rtnl_native.h"
#include "objects/modules.h"
#include "target/configfs.h"
#include "target/nvmet.h"
#include "target/target_plan.h"

namespace railyard {

namespace {

nlohmann::ordered_json exports_json(const std::vector<NvmetExport>& exports) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& e : exports)
    out.push_back(
        {{"nqn", e.nqn}, {"transport", e.transport}, {"address", e.address}, {"port", e.port}, {"device", e.device}});
  return out;
}

int cmd_target(const InputPaths& paths, const std::string& root) {
  int rc = kExitOk;
  // Each phase's wall time, as a node's report has them: the nodes' connects wait for all three.
  auto lap = std::chrono::steady_clock::now();
  auto phases = nlohmann::ordered_json::array();
  auto phase = [&](const char* name) {
    auto now = std::chrono::steady_clock::now();
    phases.push_back({{"phase", name}, {"ms", std::chrono::duration<double, std::milli>(now - lap).count()}});
    lap = now;
  };
  // Its storage rails, renamed by udev first; its modules loaded meanwhile.
  NativeModules preload_modules;
  std::optional<ModulePreload> preload;
  auto in = load_inputs(paths, rc, true, target_hardware,
                        [&](const Recipe& recipe) { preload.emplace(preload_modules, target_modules(recipe)); });
  std::vector<Change> preloaded = preload ? preload->finish() : std::vector<Change>{};
  if (!in) return rc;
  phase("discover");  // the recipe, the devices and the wait for them, the modules meanwhile
  const CheckResult devices = devices_check(*in->wait, target_hardware(in->recipe));
  if (devices.status != CheckStatus::pass) spdlog::error("devices: {} ({})", devices.observed, devices.detail);
  TargetPlan plan = plan_target(in->inventory, in->recipe, in->node);
  std::vector<Change> changes;
  if (plan.ok()) {
    NativeRtnl rtnl;
    NativeDcb dcb;
    NativeEthtool ethtool;
    NativeHost host(root);
    Kernel kernel{rtnl, dcb, ethtool, host};
    changes = apply_plan(plan.rails, kernel);
    merge_preloaded(changes, preloaded);
    phase("apply");
    bool rails_ok = std::none_of(changes.begin(), changes.end(),
                                 [](const Change& c) { return c.outcome == ChangeOutcome::failed; });
    Configfs configfs;
    if (rails_ok)
      for (const auto& e : plan.exports) apply_nvmet_export(e, configfs, changes);
    phase("export");
  }
  bool ok = plan.ok() && std::none_of(changes.begin(), changes.end(),
                                      [](const Change& c) { return c.outcome == ChangeOutcome::failed; });

  for (const auto& p : plan.problems) std::cout << "  PROBLEM  " << p << "\n";
  std::size_t unchanged = 0;
  for (const auto& c : changes) {
    unchanged += c.outcome == ChangeOutcome::unchanged;
    if (c.outcome != ChangeOutcome::unchanged)
      std::cout << "  " << to_string(c.outcome) << "  " << c.object << (c.detail.empty() ? "" : " (" + c.detail + ")")
                << "\n";
  }
  std::cout << "  " << unchanged << " of " << changes.size() << " objects already as planned\n";

  nlohmann::ordered_json report = {
      {"role", "storage-target"},
      {"node", in->node ? in->node->hostname : ""},
      {"result", ok ? "ready" : "failed"},
      {"problems", plan.problems},
      {"devices", {{"status", to_string(devices.status)}, {"observed", devices.observed}, {"detail", devices.detail}}},
      {"exports", exports_json(plan.exports)},
      {"changes", to_json(changes)},
      {"phases", phases}};
  if (auto e = write_root_file(root, "/var/lib/railyard/target.json", report.dump(2) + "\n", 0644); !e.empty())
    spdlog::error("cannot write the target report: {}", e);
  std::cout << "railyard: target=" << (ok ? "ready" : "failed") << " exports=" << plan.exports.size() << std::endl;
  return ok ? kExitOk : kExitFailed;
}

const bool target_registered = AgentCommands::add(60, [](CLI::App& app) {
  auto root = std::make_shared<std::string>("/");
  auto* sub = app.add_subcommand("target", "Lab storage target: serve the recipe's NVMe-oF targets on its rails");
  sub->add_option("--root", *root, "Prefix of every file written (default /)");
  return AgentCommands::Subcommand{sub, [root](const AgentContext& ctx) { return cmd_target(ctx.paths, *root); }};
});

}  // namespace

}  // namespace railyard
