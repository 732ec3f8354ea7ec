#include "apply/apply.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

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
#include "objects/tenant.h"
#include "objects/sysctl.h"
#include "objects/trust.h"
#include "objects/vlan.h"

namespace railyard {

namespace {

// Why nothing of the plan is applied, if something forbids it.
std::optional<Change> refusal(const Plan& plan) {
  if (!plan.ok()) return Change{"plan", ChangeOutcome::failed, "", "", "the plan has problems; nothing is applied"};
  for (const auto& rail : plan.rails)
    if (!plan.management.empty() && (rail.ifname == plan.management || rail.netdev == plan.management))
      return Change{"plan", ChangeOutcome::failed, "", "",
                    "the plan would touch the management interface " + plan.management + "; refused"};
  return std::nullopt;
}

void timed(const char* what, Applier apply, const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  auto t = std::chrono::steady_clock::now();
  apply(plan, kernel, out);
  // --verbose: where a slow first boot spends its apply phase.
  spdlog::debug("apply: {} took {} ms", what,
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count());
}

}  // namespace

std::vector<Change> apply_node(const Plan& plan, Kernel& kernel) {
  if (auto no = refusal(plan)) return {*no};
  std::vector<Change> out;
  // What a NIC keeps per physical port is set on every port of a bonded rail.
  Plan ports = plan;
  ports.rails.clear();
  for (const auto& rail : plan.rails)
    for (auto& view : port_views(rail)) ports.rails.push_back(std::move(view));
  // Order matters: modules before the devices they provide, links before their VLANs,
  // addresses before the routes and rules that name them, rails up before DCB.
  struct Step {
    const char* what;
    Applier apply;
    bool per_port;
  };
  static const Step steps[] = {{"modules", apply_modules, false},
                               {"Soft-RoCE", apply_soft_roce, false},
                               {"links", apply_links, false},
                               {"VLANs", apply_vlans, false},
                               {"addresses", apply_addresses, false},
                               {"routing", apply_routing, false},
                               {"sysctls", apply_sysctls, false},
                               {"PFC", apply_pfc, true},
                               {"DSCP", apply_dscp_app, true},
                               {"trust", apply_trust, true},
                               {"ECN", apply_ecn, true},
                               {"RoCE ToS", apply_roce_tos, false},
                               {"storm", apply_storm, true},
                               {"ACS", apply_acs, false},
                               {"tenant", apply_tenant, false}};
  for (const Step& s : steps) timed(s.what, s.apply, s.per_port ? ports : plan, kernel, out);
  return out;
}

void apply_storage(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  if (!refusal(plan)) timed("NVMe-oF", apply_nvmeof, plan, kernel, out);
}

std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel) {
  std::vector<Change> out = apply_node(plan, kernel);
  apply_storage(plan, kernel, out);
  return out;
}

}  // namespace railyard
