#include "apply.h"

namespace railyard {

std::string rail_label(const RailPlan& rail) { return "rail " + std::to_string(rail.index) + " (" + rail.ifname + ")"; }

Change change_from(const std::string& object, const Status& s, const std::string& before, const std::string& after,
                   Outcome ok_outcome) {
  Change c{object, ok_outcome, before, after, s.message};
  if (!s.ok()) c.outcome = s.unsupported() ? Outcome::unsupported : Outcome::failed;
  return c;
}

std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel) {
  std::vector<Change> out;
  if (!plan.ok()) {
    out.push_back({"plan", Outcome::failed, "", "", "the plan has problems; nothing is applied"});
    return out;
  }
  for (const auto& rail : plan.rails)
    if (!plan.management.empty() && (rail.ifname == plan.management || rail.netdev == plan.management)) {
      out.push_back({"plan", Outcome::failed, "", "",
                     "the plan would touch the management interface " + plan.management + "; refused"});
      return out;
    }
  // Order matters: modules before the devices they provide, links before their VLANs,
  // addresses before the routes and rules that name them, rails up before DCB.
  static const Applier appliers[] = {apply_modules, apply_soft_roce, apply_links, apply_vlans,  apply_addresses,
                                     apply_routing, apply_sysctls,  apply_dcb_pfc, apply_dcb_app, apply_trust,
                                     apply_ecn,     apply_roce_tos, apply_storm,  apply_acs,     apply_nvmeof};
  for (Applier a : appliers) a(plan, kernel, out);
  return out;
}

}  // namespace railyard
