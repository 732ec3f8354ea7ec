// Checks read back over rtnetlink: MTU, VLAN, addresses, default routes.
#include <algorithm>

#include "checks.h"

namespace railyard::checks {

bool network(const VerifyContext& ctx, CheckResult& r) {
  auto rc = rail_check(ctx.plan, r.name);
  if (!rc.rail) return false;
  const RailPlan& rail = *rc.rail;
  Rtnl& rtnl = ctx.kernel.rtnl;
  if (rc.what == "mtu") {
    auto link = rtnl.link(rail.netdev);
    if (!link.ok()) from_status(r, link.status);
    else if (link.value->mtu == rail.mtu) pass(r, std::to_string(link.value->mtu));
    else fail(r, std::to_string(link.value->mtu), "RoCE path MTU follows the interface MTU; the switch port must match");
    return true;
  }
  if (rc.what == "vlan") {
    auto link = rtnl.link(rail.netdev);
    if (!link.ok()) from_status(r, link.status);
    else if (link.value->vlan_id == rail.vlan && link.value->parent == rail.ifname)
      pass(r, rail.netdev + " id " + std::to_string(*rail.vlan));
    else
      fail(r,
           (link.value->vlan_id ? rail.netdev + " id " + std::to_string(*link.value->vlan_id) : rail.netdev + " untagged") +
               (link.value->parent.empty() ? "" : " on " + link.value->parent),
           "expected on " + rail.ifname);
    return true;
  }
  if (rc.what == "address") {
    auto addrs = rtnl.addresses(rail.netdev);
    if (!addrs.ok()) from_status(r, addrs.status);
    else if (std::find(addrs.value->begin(), addrs.value->end(), *rail.address) != addrs.value->end())
      pass(r, *rail.address + " on " + rail.netdev);
    else {
      std::string seen;
      for (const auto& a : *addrs.value) seen += (seen.empty() ? "" : " ") + a;
      fail(r, seen.empty() ? "no address" : seen);
    }
    return true;
  }
  if (rc.what == "no_default_route") {
    auto routes = rtnl.routes(254);
    if (!routes.ok()) {
      from_status(r, routes.status);
      return true;
    }
    for (const auto& route : *routes.value)
      if (route.destination == "default" && (route.dev == rail.netdev || route.dev == rail.ifname)) {
        fail(r, "default route via " + route.dev, "rails must never carry a default route (DHCP on a rail?)");
        return true;
      }
    pass(r, "none via " + rail.netdev);
    return true;
  }
  return false;
}

}  // namespace railyard::checks
