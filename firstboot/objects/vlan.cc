// VLAN rails: the rail's netdev as an 802.1Q device on its physical interface, then its MTU
// and admin state. A device of that name that is something else is reported, never changed.
#include "objects/vlan.h"

#include "objects/result.h"

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
      if (link->vlan_id != rail.vlan || link->parent != rail.ifname) {
        out.push_back({object, ChangeOutcome::failed, describe(*link), want,
                       rail.netdev + " exists as " + describe(*link) + "; not modified"});
        continue;
      }
      out.push_back({object, ChangeOutcome::unchanged, want, want, ""});
    } else if (link.code() == ENODEV) {
      Status s = kernel.rtnl.add_vlan(rail.ifname, rail.netdev, *rail.vlan);
      out.push_back(change_from(object, s, "none", want));
      if (!s.ok()) continue;
      link = kernel.rtnl.link(rail.netdev);
      if (!link.ok()) {
        out.push_back({object, ChangeOutcome::failed, "none", want, "created, but " + link.error()});
        continue;
      }
    } else {
      out.push_back({object, ChangeOutcome::failed, "", want, link.error()});
      continue;
    }

    std::string mtu = std::to_string(rail.mtu);
    std::string device = label + ": " + rail.netdev;
    if (link->mtu == rail.mtu) out.push_back({device + " MTU", ChangeOutcome::unchanged, mtu, mtu, ""});
    else
      out.push_back(
          change_from(device + " MTU", kernel.rtnl.set_mtu(rail.netdev, rail.mtu), std::to_string(link->mtu), mtu));
    if (link->up) out.push_back({device + " up", ChangeOutcome::unchanged, "up", "up", ""});
    else out.push_back(change_from(device + " up", kernel.rtnl.set_link_up(rail.netdev), "down", "up"));
  }
}

void verify_vlan(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto link = ctx.kernel.rtnl.link(rail.netdev);
  if (!link.ok()) checks::from_status(r, link.status());
  else if (link->vlan_id == rail.vlan && link->parent == rail.ifname)
    checks::pass(r, rail.netdev + " id " + std::to_string(*rail.vlan));
  else
    checks::fail(r,
                 (link->vlan_id ? rail.netdev + " id " + std::to_string(*link->vlan_id) : rail.netdev + " untagged") +
                     (link->parent.empty() ? "" : " on " + link->parent),
                 "expected on " + rail.ifname);
}

}  // namespace railyard
