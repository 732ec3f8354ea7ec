// Rail links: the physical interface administratively up, at the planned MTU. A VLAN rail's
// parent is set here too, before vlan.cc raises the VLAN's MTU (it may not exceed the parent's).
#include "objects/link.h"

#include "text.h"
#include "objects/result.h"

namespace railyard {

void apply_links(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    std::string label = rail_label(rail);
    std::string mtu = std::to_string(rail.mtu);
    auto link = kernel.rtnl.link(rail.ifname);
    if (!link.ok()) {
      // A missing rail NIC is a failure of this node, not a feature the kernel lacks.
      out.push_back({label + ": link", ChangeOutcome::failed, "", "up, MTU " + mtu, link.error()});
      continue;
    }
    std::string why = rail.vlan ? "parent of " + rail.netdev + ", set before it" : "";
    if (link->mtu == rail.mtu) {
      out.push_back({label + ": MTU", ChangeOutcome::unchanged, mtu, mtu, why});
    } else {
      Change c =
          change_from(label + ": MTU", kernel.rtnl.set_mtu(rail.ifname, rail.mtu), std::to_string(link->mtu), mtu);
      if (c.detail.empty()) c.detail = why;
      out.push_back(c);
    }
    // MTU before up: some NICs reset their link on an MTU change; come up once, at the final MTU.
    if (link->up) out.push_back({label + ": up", ChangeOutcome::unchanged, "up", "up", ""});
    else out.push_back(change_from(label + ": up", kernel.rtnl.set_link_up(rail.ifname), "down", "up"));
  }
}

void verify_mtu(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto link = ctx.kernel.rtnl.link(rail.netdev);
  if (!link.ok()) checks::from_status(r, link.status());
  else if (link->mtu == rail.mtu) checks::pass(r, std::to_string(link->mtu));
  else
    checks::fail(r, std::to_string(link->mtu), "RoCE path MTU follows the interface MTU; the switch port must match");
}

void verify_link(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const Nic* nic = ctx.now.nic(rail.ifname);
  if (!nic) return checks::fail(r, "absent", rail.ifname + " is gone");
  if (nic->operstate != "up")
    return checks::fail(r, nic->operstate, "no carrier: check the cable, the transceiver and the switch port");
  if (!nic->bonded()) return checks::pass(r, "up");
  // A bond is up while one port is: a rail with a port down has half its bandwidth and no
  // redundancy left, and the switch side of that cable is unproven.
  std::vector<std::string> down;
  for (const auto& p : nic->bond_ports)
    if (p.operstate != "up") down.push_back(p.ifname + " " + p.operstate);
  std::string ports = std::to_string(nic->bond_ports.size() - down.size()) + " of " +
                      std::to_string(nic->bond_ports.size()) + " ports up";
  if (down.empty()) return checks::pass(r, "up, " + ports);
  checks::fail(r, "up, " + ports + " (" + join(down, ", ") + ")",
               "a port of " + rail.ifname +
                   " has no carrier: the rail runs without it; check its cable, transceiver "
                   "and switch port, and that the leaf's LAG (MLAG) has it as a member");
}

}  // namespace railyard
