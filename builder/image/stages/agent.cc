// The agent stage: the railyard-firstboot package installed with apt (so the image's package
// database knows its version and dependencies), its units enabled, and the resolved recipe
// as /etc/railyard/recipe.toml.
// Its cache key (what defines the agent stage) is computed purely in core/build_plan.cc (plan_build).
#include <filesystem>

#include "apt.h"
#include "image_files.h"
#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

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
  auto listing = ctx.runner.capture(in_image(ctx.root, {"dpkg-query", "-L", "railyard-firstboot"}, "list the agent's files"));
  if (!listing.ok()) return Status::fail(listing.error());
  std::vector<std::string> units;
  for (const auto& line : split(*listing, '\n'))
    if (line.find("/systemd/system/") != std::string::npos && line.ends_with(".service")) units.push_back(fs::path(line).filename());
  if (units.empty()) return Status::fail("the agent package ships no systemd unit");
  std::vector<std::string> argv = {"systemctl", "enable"};
  argv.insert(argv.end(), units.begin(), units.end());
  ctx.step("enable " + join(units, ", "));
  if (auto s = ctx.runner.run(in_image(ctx.root, argv, "enable the agent's units")); !s.ok()) return s;
  return write_file_atomically(ctx.root + "/etc/railyard/recipe.toml",
                           "# " + ctx.recipe.recipe.name + ", resolved by railyard build (extends applied, defaults filled)\n" +
                               render_recipe_toml(ctx.recipe.recipe));
}

}  // namespace railyard
