// VLAN rails: the rail's netdev as an 802.1Q device on its physical interface, then its MTU
// and admin state. A device of that name that is something else is reported, never changed.
#include "objects/vlan.h"

#include "verify/result.h"

#include <cerrno>

namespace railyard {

namespace {

std::string describe(const LinkInfo& l) {
  if (!l.vlan_id) return l.name + " (not a VLAN)";
  return l.name + " id " + std::to_string(*l.vlan_id) + " on " + (l.parent.empty() ? "?" : l.parent);
}

}  // namespace

void apply_vlans(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (!rail.vlan) continue;
    std::string label = rail_label(rail);
    std::string object = label + ": VLAN " + rail.netdev;
    std::string want = rail.netdev + " id " + std::to_string(*rail.vlan) + " on " + rail.ifname;
    auto link = kernel.rtnl.link(rail.netdev);
    if (link.ok()) {
      if (link.value->vlan_id != rail.vlan || link.value->parent != rail.ifname) {
        out.push_back({object, Outcome::failed, describe(*link.value), want,
                       rail.netdev + " exists as " + describe(*link.value) + "; not modified"});
        continue;
      }
      out.push_back({object, Outcome::unchanged, want, want, ""});
    } else if (link.status.err == ENODEV) {
      Status s = kernel.rtnl.add_vlan(rail.ifname, rail.netdev, *rail.vlan);
      out.push_back(change_from(object, s, "none", want));
      if (!s.ok()) continue;
      link = kernel.rtnl.link(rail.netdev);
      if (!link.ok()) {
        out.push_back({object, Outcome::failed, "none", want, "created, but " + link.status.message});
        continue;
      }
    } else {
      out.push_back({object, Outcome::failed, "", want, link.status.message});
      continue;
    }

    std::string mtu = std::to_string(rail.mtu);
    std::string device = label + ": " + rail.netdev;
    if (link.value->mtu == rail.mtu)
      out.push_back({device + " MTU", Outcome::unchanged, mtu, mtu, ""});
    else
      out.push_back(change_from(device + " MTU", kernel.rtnl.set_mtu(rail.netdev, rail.mtu),
                                std::to_string(link.value->mtu), mtu));
    if (link.value->up)
      out.push_back({device + " up", Outcome::unchanged, "up", "up", ""});
    else
      out.push_back(change_from(device + " up", kernel.rtnl.set_link_up(rail.netdev), "down", "up"));
  }
}

void verify_vlan(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto link = ctx.kernel.rtnl.link(rail.netdev);
  if (!link.ok()) checks::from_status(r, link.status);
  else if (link.value->vlan_id == rail.vlan && link.value->parent == rail.ifname)
    checks::pass(r, rail.netdev + " id " + std::to_string(*rail.vlan));
  else
    checks::fail(r,
                 (link.value->vlan_id ? rail.netdev + " id " + std::to_string(*link.value->vlan_id) : rail.netdev + " untagged") +
                     (link.value->parent.empty() ? "" : " on " + link.value->parent),
                 "expected on " + rail.ifname);
}

}  // namespace railyard
