// The agent stage: the railyard-firstboot package installed with apt (so the image's package
// database knows its version and dependencies), its units enabled, the join units gated
// (core/join_gate.h), the recipe's kernel modules for systemd-modules-load, and the resolved
// recipe as /etc/railyard/recipe.toml.
// Its cache key (what defines the agent stage) is computed purely in core/build_plan.cc (plan_build).
#include <algorithm>
#include <filesystem>

#include "agent.h"
#include "apt.h"
#include "diagnostic.h"
#include "join_gate.h"
#include "plan.h"
#include "slurm.h"
#include "image_files.h"
#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// "FILE:LINE:COL" of the first of `keys` the recipe holds, for an error that points at it.
std::string key_position(const LoadedRecipe& lr, const std::vector<std::string>& keys) {
  SourcePos pos{lr.path, 1, 1};
  for (const std::string& key : keys)
    if (auto it = lr.positions.find(key); it != lr.positions.end()) {
      pos = it->second;
      break;
    }
  return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

// Where the recipe names join unit `i`.
std::string unit_position(const LoadedRecipe& lr, std::size_t i) {
  return key_position(lr, {"join.units[" + std::to_string(i) + "]", "join.units", "join"});
}

}  // namespace

Status gate_join_units(StageContext& ctx) {
  const auto& units = ctx.recipe.recipe.join.units;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::string& unit = units[i];
    auto paths = unit_file_paths(unit);
    std::error_code ec;
    auto found = std::find_if(paths.begin(), paths.end(), [&](const std::string& p) {
      return fs::exists(fs::symlink_status(fs::path(ctx.root) / p.substr(1), ec));
    });
    std::string at = unit_position(ctx.recipe, i) + ":";
    if (found == paths.end())
      return Status::fail(at + " join.units: " + unit +
                          " is in no package, driver bundle or overlay of the image "
                          "(looked for " +
                          join(paths, ", ") +
                          "); add the package that ships it to image.packages, "
                          "or ship it in an overlay");
    if (fs::is_symlink(fs::symlink_status(fs::path(ctx.root) / found->substr(1), ec)) &&
        fs::read_symlink(fs::path(ctx.root) / found->substr(1), ec) == "/dev/null")
      return Status::fail(at + " join.units: " + unit + " is masked in the image (" + *found +
                          " is a link to /dev/null); the agent could never start it");
    if (auto s = write_file_atomically(ctx.root + join_gate_path(unit), join_gate_text(unit)); !s.ok()) return s;
  }
  if (!units.empty()) ctx.step("gate " + join(units, ", ") + " on " + kJoinedMarker);
  return success();
}

Status slurm_node_files(StageContext& ctx) {
  const SlurmSpec& slurm = ctx.recipe.recipe.slurm;
  if (slurm.controller.empty()) return success();
  std::string at = key_position(ctx.recipe, {"join.slurm.controller", "join.slurm"}) + ":";
  // What the agent runs and what munged runs as must be in the image: said here, at build
  // time, rather than by a node that cannot drain itself.
  for (const auto& [path, package] : std::vector<std::pair<std::string, std::string>>{
           {"/usr/bin/scontrol", "slurm-client"}, {"/usr/sbin/munged", "munge"}}) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(ctx.root + path, ec)))
      return Status::fail(at + " join.slurm: the image has no " + path + "; add " + package + " to image.packages");
  }
  // slurmd's cgroup/v2 plugin has systemd make the scope of its step daemons over the system
  // bus, and fails to start without one ("cannot connect to dbus system daemon").
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(ctx.root + "/usr/bin/dbus-daemon", ec)) &&
      !fs::exists(fs::symlink_status(ctx.root + "/usr/bin/dbus-broker", ec)))
    return Status::fail(at +
                        " join.slurm: the image has no D-Bus system bus (/usr/bin/dbus-daemon or dbus-broker), "
                        "which slurmd's cgroup/v2 plugin needs to start; add dbus to image.packages");
  if (auto s = write_file_atomically(ctx.root + kSlurmdDropin, slurmd_dropin_text(slurm)); !s.ok()) return s;
  if (auto s = write_file_atomically(ctx.root + kMungeTmpfiles, munge_tmpfiles_text()); !s.ok()) return s;
  ctx.step("slurmd configless from " + slurm.controller + "; munge's key made munge's at boot");
  return success();
}

constexpr const char* kResponderUnit = "railyard-probe-responder.service";

Status run_agent(StageContext& ctx) {
  if (ctx.where.agent.empty())
    return Status::fail("the railyard-firstboot package is not beside this railyard (build the agent-package target)");
  std::string inside = "/var/tmp/" + fs::path(ctx.where.agent).filename().string();
  std::error_code ec;
  fs::copy_file(ctx.where.agent, ctx.root + inside, fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::fail(ctx.root + inside + ": " + ec.message());
  {
    AptSession session(ctx.root);
    ctx.step("install " + fs::path(ctx.where.agent).filename().string());
    Status installed = apt_install(ctx, {inside}, "install the agent package");
    fs::remove(ctx.root + inside, ec);
    if (!installed.ok()) return installed;
  }
  // Enable every unit the package ships: each one's [Install] section says where it hangs.
  auto listing =
      ctx.runner.capture(in_image(ctx.root, {"dpkg-query", "-L", "railyard-firstboot"}, "list the agent's files"));
  if (!listing.ok()) return Status::fail(listing.error());
  std::vector<std::string> units;
  // A service a timer of its own name starts is the timer's (railyard-verify.timer): not enabled.
  std::vector<std::string> shipped;
  for (const auto& line : split(*listing, '\n'))
    if (line.find("/systemd/system/") != std::string::npos) shipped.push_back(fs::path(line).filename());
  for (const auto& u : shipped) {
    std::string stem = u.substr(0, u.rfind('.'));
    // The peer-probe responder only where the recipe asks for it ([fabric.probe] responder).
    if (u == kResponderUnit && !ctx.recipe.recipe.probe.responder) continue;
    if (u.ends_with(".timer") ||
        (u.ends_with(".service") && std::find(shipped.begin(), shipped.end(), stem + ".timer") == shipped.end()))
      units.push_back(u);
  }
  if (units.empty()) return Status::fail("the agent package ships no systemd unit");
  std::vector<std::string> argv = {"systemctl", "enable"};
  argv.insert(argv.end(), units.begin(), units.end());
  ctx.step("enable " + join(units, ", "));
  if (auto s = ctx.runner.run(in_image(ctx.root, argv, "enable the agent's units")); !s.ok()) return s;
  if (auto s = gate_join_units(ctx); !s.ok()) return s;
  if (auto s = slurm_node_files(ctx); !s.ok()) return s;
  if (auto s = write_file_atomically(ctx.root + kModulesLoadPath, modules_load_conf(ctx.recipe.recipe)); !s.ok())
    return s;
  ctx.step("load " + join(recipe_modules(ctx.recipe.recipe), ", ") + " at early boot (" + kModulesLoadPath + ")");
  return write_file_atomically(ctx.root + "/etc/railyard/recipe.toml",
                               "# " + ctx.recipe.recipe.name +
                                   ", resolved by railyard build (extends applied, defaults filled)\n" +
                                   render_recipe_toml(ctx.recipe.recipe));
}

}  // namespace railyard
