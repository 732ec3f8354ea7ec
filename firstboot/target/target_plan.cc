#include "target_plan.h"

#include <algorithm>
#include <set>

#include "net.h"

namespace railyard {

HardwareSpec target_hardware(const Recipe& recipe) {
  int last_rail = 0;
  for (const auto& t : recipe.nvmeof) last_rail = std::max(last_rail, t.rail);
  HardwareSpec hw = recipe.hardware;
  hw.gpu_count = 0;
  hw.rail_count = last_rail + 1;
  if (hw.rails.size() > static_cast<std::size_t>(last_rail + 1))
    hw.rails.resize(static_cast<std::size_t>(last_rail + 1));
  return hw;
}

TargetPlan plan_target(const Inventory& inv, const Recipe& recipe, const std::optional<NodeEntry>& node) {
  TargetPlan out;
  if (recipe.nvmeof.empty()) {
    out.problems.push_back("recipe '" + recipe.name + "' has no [[nvmeof]] target to serve");
    return out;
  }
  int last_rail = 0;
  for (const auto& t : recipe.nvmeof) last_rail = std::max(last_rail, t.rail);

  // The node's planner, asked for just the rails up to the last storage rail, with the
  // targets' addresses as this VM's identity.
  Recipe r = recipe;
  r.nvmeof.clear();
  r.hardware = target_hardware(recipe);
  NodeEntry identity;
  if (node) identity = *node;
  identity.rails.assign(static_cast<std::size_t>(last_rail + 1), "");
  std::set<int> storage_rails;
  for (const auto& t : recipe.nvmeof) {
    auto& slot = identity.rails[static_cast<std::size_t>(t.rail)];
    if (!slot.empty() && slot != t.address)
      out.problems.push_back("targets on rail " + std::to_string(t.rail) + " use " + slot + " and " + t.address +
                             "; a storage target serves one address per rail");
    slot = t.address;
    storage_rails.insert(t.rail);
  }
  if (!out.ok()) return out;

  Plan p = make_plan(inv, r, identity);
  if (!p.ok()) {
    out.problems = p.problems;
    return out;
  }
  std::erase_if(p.rails, [&](const RailPlan& rail) { return !storage_rails.count(rail.index); });
  // A reference ([fabric.probe]) on layer-2 rails: its one storage NIC sits on the lab leaf's
  // bridge, which every rail's segment shares, so the other rails' addresses go on it too,
  // each with its rail's prefix; its Soft-RoCE device then has a GID for each, and the
  // responder serves every rail from it.
  if (node && node->reference && !p.rails.empty() && recipe.routing.mode == RoutingMode::l2 &&
      recipe.addressing.mode == AddressingMode::per_rail_subnet)
    for (std::size_t r = static_cast<std::size_t>(last_rail) + 1; r < node->rails.size(); ++r) {
      auto a = parse_interface_address(node->rails[r]);
      auto net = r < recipe.addressing.subnets.size() ? parse_cidr(recipe.addressing.subnets[r]) : std::nullopt;
      if (a && net) p.rails.front().extra_addresses.push_back(a->address.str() + "/" + std::to_string(net->prefix));
    }
  // A target needs its rails and the export, not a node's NCCL files, checks or GPU tuning.
  p.files.clear();
  p.checks.clear();
  p.acs_disable.clear();
  p.peermem = false;
  p.modules = target_modules(recipe);
  for (const auto& t : recipe.nvmeof)
    out.exports.push_back(
        {t.nqn, t.transport == NvmeTransport::rdma ? "rdma" : "tcp", t.address, t.port, kTargetDevice});
  out.rails = std::move(p);
  return out;
}

}  // namespace railyard
