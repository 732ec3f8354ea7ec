#include "apply/apply.h"

#include "objects/acs.h"
#include "objects/address.h"
#include "objects/dscp_app.h"
#include "objects/ecn.h"
#include "objects/link.h"
#include "objects/modules.h"
#include "objects/nvmeof.h"
#include "objects/pfc.h"
#include "objects/roce_tos.h"
#include "objects/routing.h"
#include "objects/soft_roce.h"
#include "objects/storm.h"
#include "objects/sysctl.h"
#include "objects/trust.h"
#include "objects/vlan.h"

namespace railyard {

std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel) {
  std::vector<Change> out;
  if (!plan.ok()) {
    out.push_back({"plan", ChangeOutcome::failed, "", "", "the plan has problems; nothing is applied"});
    return out;
  }
  for (const auto& rail : plan.rails)
    if (!plan.management.empty() && (rail.ifname == plan.management || rail.netdev == plan.management)) {
      out.push_back({"plan", ChangeOutcome::failed, "", "",
                     "the plan would touch the management interface " + plan.management + "; refused"});
      return out;
    }
  // Order matters: modules before the devices they provide, links before their VLANs,
  // addresses before the routes and rules that name them, rails up before DCB.
  static const Applier appliers[] = {apply_modules, apply_soft_roce, apply_links, apply_vlans,  apply_addresses,
                                     apply_routing, apply_sysctls,  apply_pfc,   apply_dscp_app, apply_trust,
                                     apply_ecn,     apply_roce_tos, apply_storm, apply_acs,      apply_nvmeof};
  for (Applier a : appliers) a(plan, kernel, out);
  return out;
}

}  // namespace railyard
