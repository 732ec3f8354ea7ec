// `railyard-firstboot discover [--json]`: what is on this node and how it maps to rails.
#include <memory>
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "discover/table.h"
#include "rails.h"

namespace railyard {

namespace {

int cmd_discover(const InputPaths& paths, bool json) {
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  RailMap map = map_rails(in->inventory, in->recipe.hardware, in->recipe.fabric.soft_roce);
  if (json) {
    auto j = to_json(in->inventory);
    const Nic* m = in->inventory.management();
    j["management"] = m ? nlohmann::ordered_json(m->ifname) : nlohmann::ordered_json(nullptr);
    j["rails"] = rails_json(in->inventory, map);
    nlohmann::ordered_json non_rail = nlohmann::ordered_json::array();
    for (std::size_t n : map.non_rail) non_rail.push_back(in->inventory.nics[n].ifname);
    j["non_rail_nics"] = non_rail;
    j["problems"] = map.problems;
    j["warnings"] = map.warnings;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << inventory_table(in->inventory, map);
    if (!in->management_how.empty()) std::cout << "management: " << in->management_how << "\n";
  }
  return kExitOk;
}

const bool discover_registered = AgentCommands::add(20, [](CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("discover", "Print the GPUs, NICs, RDMA devices and rails of this node");
  sub->add_flag("--json", *json, "JSON (the inventory contract) instead of a table");
  return AgentCommands::Subcommand{sub, [json](const AgentContext& ctx) { return cmd_discover(ctx.paths, *json); }};
});

}  // namespace

}  // namespace railyard
