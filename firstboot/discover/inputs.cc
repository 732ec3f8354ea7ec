#include "discover/inputs.h"

#include <spdlog/spdlog.h>

#include "discover/default_route.h"
#include "discover/discover.h"
#include "io/disk_source.h"
#include "io/log.h"
#include "management.h"
#include "recipe_loader.h"

namespace railyard {

std::optional<Inputs> load_inputs(const InputPaths& paths, int& exit_code, bool wait_devices,
                                  HardwareSpec (*needs)(const Recipe&),
                                  const std::function<void(const Recipe&)>& before_wait) {
  DiskSource disk;
  Diagnostics diags;
  Inputs in;
  if (paths.recipe_given || disk.is_file(paths.recipe)) {
    RecipeOptions opts;
    opts.check_references = false;  // bundles and overlays were consumed when the image was built
    if (auto lr = load_recipe(disk, paths.recipe, opts, diags)) {
      in.recipe = lr->recipe;
      in.recipe_found = true;
    }
  } else {
    in.recipe = default_recipe();
  }
  if (disk.is_file(paths.node))
    in.node =
        parse_node_identity(disk, paths.node, in.recipe_found || !paths.recipe_given ? &in.recipe : nullptr, diags);
  if (!diags.empty()) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  spdlog::debug("recipe: {}", in.recipe_found ? paths.recipe + " ('" + in.recipe.name + "')"
                                              : "none at " + paths.recipe + "; the built-in default");
  spdlog::debug("node identity: {}", in.node ? paths.node + " (" + in.node->hostname + ")" : "none at " + paths.node);
  auto mark = [&in](Inventory& inv) {
    in.management_how = mark_management(inv, in.recipe.management, in.node, default_route_ifname());
  };
  if (wait_devices) {
    if (before_wait) before_wait(in.recipe);
    Recipe wanted = in.recipe;
    if (needs) wanted.hardware = needs(in.recipe);
    in.wait = wait_for_devices(wanted, mark, std::chrono::seconds(in.recipe.selftest.device_wait_s));
    in.inventory = in.wait->inventory;
  } else {
    in.inventory = discover();
    mark(in.inventory);
  }
  const Nic* mgmt = in.inventory.management();
  spdlog::debug("discovered {} GPU(s), {} NIC(s), {} RDMA device(s); management interface: {}",
                in.inventory.gpus.size(), in.inventory.nics.size(), in.inventory.rdma.size(),
                mgmt ? mgmt->ifname + " (" + in.management_how + ")" : "none");
  return in;
}

}  // namespace railyard
