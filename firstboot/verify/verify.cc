#include "verify/verify.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <numeric>
#include <optional>

#include <spdlog/spdlog.h>

#include "checks/data_path.h"
#include "checks/gpu_health.h"
#include "checks/hardware.h"
#include "checks/lldp.h"
#include "checks/peer_probe.h"
#include "gpu/nvml.h"
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
#include "objects/storm.h"
#include "objects/tenant.h"
#include "objects/trust.h"
#include "objects/vlan.h"
#include "text.h"
#include "objects/result.h"

namespace railyard {

namespace {

const RailPlan* rail_of(const Plan& plan, int index) {
  for (const auto& r : plan.rails)
    if (r.index == index) return &r;
  return nullptr;
}

const NvmeofConnection* connection_of(const Plan& plan, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= plan.nvmeof.size()) return nullptr;
  return &plan.nvmeof[static_cast<std::size_t>(index)];
}

using RailCheck = void (*)(const VerifyContext&, const RailPlan&, CheckResult&);

// A check of what a NIC keeps per port, on every port of a bonded rail (one port: the rail
// itself). The worst port decides; the observation names the ports, each with its own
// reading where they differ.
void on_ports(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r, RailCheck check) {
  std::vector<RailPlan> views = port_views(rail);
  if (views.size() == 1) return check(ctx, views.front(), r);
  std::vector<CheckResult> each;
  for (const auto& view : views) {
    CheckResult one = r;
    check(ctx, view, one);
    each.push_back(std::move(one));
  }
  const CheckResult& first = each.front();
  bool same = std::all_of(each.begin(), each.end(), [&](const CheckResult& c) {
    return c.status == first.status && c.observed == first.observed && c.detail == first.detail;
  });
  CheckStatus worst = first.status;
  for (const auto& c : each)
    if (worst_rank(c.status) > worst_rank(worst)) worst = c.status;
  r.status = worst;
  if (same) {
    r.observed = first.observed + " on " + join(rail.bond_ports, ", ");
    r.detail = first.detail;
    return;
  }
  std::vector<std::string> observed, details;
  for (std::size_t i = 0; i < each.size(); ++i) {
    observed.push_back(views[i].ifname + ": " + each[i].observed);
    if (!each[i].detail.empty() && each[i].status != CheckStatus::pass)
      details.push_back(views[i].ifname + ": " + each[i].detail);
  }
  r.observed = join(observed, "; ");
  r.detail = join(details, "; ");
}

// An evaluator fills in one check's result; false when this agent cannot evaluate it (a
// kind planned by no one, or a rail, target or tenant the plan does not have). The adapters
// below find what the check is about by its scope and call the object's or check's function.
using Evaluate = bool (*)(const VerifyContext&, const CheckId&, CheckResult&);

template <void (*F)(const VerifyContext&, CheckResult&)>
bool node(const VerifyContext& ctx, const CheckId&, CheckResult& r) {
  F(ctx, r);
  return true;
}
template <void (*F)(const VerifyContext&, int, CheckResult&)>
bool gpu(const VerifyContext& ctx, const CheckId& id, CheckResult& r) {
  F(ctx, id.index, r);
  return true;
}
template <void (*F)(const VerifyContext&, const RailPlan&, CheckResult&)>
bool rail(const VerifyContext& ctx, const CheckId& id, CheckResult& r) {
  const RailPlan* rail = rail_of(ctx.plan, id.index);
  if (!rail) return false;
  F(ctx, *rail, r);
  return true;
}
// A per-port setting: on every port of a bonded rail (on_ports).
template <void (*F)(const VerifyContext&, const RailPlan&, CheckResult&)>
bool ports(const VerifyContext& ctx, const CheckId& id, CheckResult& r) {
  const RailPlan* rail = rail_of(ctx.plan, id.index);
  if (!rail) return false;
  on_ports(ctx, *rail, r, F);
  return true;
}
template <void (*F)(const VerifyContext&, const NvmeofConnection&, CheckResult&)>
bool nvmeof(const VerifyContext& ctx, const CheckId& id, CheckResult& r) {
  const NvmeofConnection* c = connection_of(ctx.plan, id.index);
  if (!c) return false;
  F(ctx, *c, r);
  return true;
}
template <void (*F)(const VerifyContext&, CheckResult&)>
bool tenant(const VerifyContext& ctx, const CheckId&, CheckResult& r) {
  if (!ctx.plan.tenant) return false;
  F(ctx, r);
  return true;
}
bool bridge_acs(const VerifyContext& ctx, const CheckId& id, CheckResult& r) {
  verify_acs(ctx, id.subject, r);
  return true;
}
// devices.ready (the wait before planning), apply's own results and names this agent does
// not know: never planned, so never evaluated.
bool not_planned(const VerifyContext&, const CheckId&, CheckResult&) { return false; }

struct Evaluator {
  CheckKind kind;
  Evaluate evaluate;
};

using K = CheckKind;
// One row per check kind, in enum order: a kind added to core/check_id.h without its row here
// fails the static_assert below.
constexpr std::array<Evaluator, kCheckKinds> kEvaluators = {{
    {K::devices_ready, not_planned},
    {K::gpu_count, node<checks::gpu_count>},
    {K::gpu_model, node<checks::gpu_model>},
    {K::gpu_pcie_link, gpu<checks::gpu_pcie_link>},
    {K::gpu_nvml, gpu<checks::gpu_nvml>},
    {K::gpu_persistence, gpu<checks::gpu_persistence>},
    {K::gpu_ecc, gpu<checks::gpu_ecc>},
    {K::gpu_row_remap, gpu<checks::gpu_row_remap>},
    {K::gpu_xid, gpu<checks::gpu_xid>},
    {K::gpu_throttle, gpu<checks::gpu_throttle>},
    {K::gpu_temperature, gpu<checks::gpu_temperature>},
    {K::gpu_nvml_pcie, gpu<checks::gpu_nvml_pcie>},
    {K::gpu_nvlink, gpu<checks::gpu_nvlink>},
    {K::rails_count, node<checks::rails_count>},
    {K::rail_affinity, rail<checks::rail_affinity>},
    {K::rail_gpu_topology, rail<checks::rail_gpu_topology>},
    {K::rail_pcie_link, rail<checks::rail_pcie_link>},
    {K::rail_link, rail<verify_link>},
    {K::rail_speed, rail<checks::rail_speed>},
    {K::rail_mtu, rail<verify_mtu>},
    {K::rail_vlan, rail<verify_vlan>},
    {K::rail_address, rail<verify_address>},
    {K::rail_no_default_route, rail<verify_no_default_route>},
    {K::rail_pfc, ports<verify_pfc>},
    {K::rail_trust, ports<verify_trust>},
    {K::rail_dscp_map, ports<verify_dscp_map>},
    {K::rail_ecn, ports<verify_ecn>},
    {K::rail_roce_tos, rail<verify_roce_tos>},
    {K::rail_storm_prevention, ports<verify_storm_prevention>},
    {K::rail_rdma_port, rail<checks::rdma_port>},
    {K::rail_roce_v2_gid, rail<checks::roce_v2_gid>},
    {K::rail_rdma_write, rail<checks::rdma_write>},
    {K::rail_gpudirect_write, rail<checks::gpudirect_write>},
    {K::rail_pause_storm, ports<verify_pause_storm>},
    {K::rail_peer_write, rail<checks::peer_write>},
    {K::rail_peer_bandwidth, rail<checks::peer_bandwidth>},
    {K::rail_peer_latency, rail<checks::peer_latency>},
    {K::rail_lldp, rail<checks::rail_lldp>},
    {K::rail_lldp_pfc, rail<checks::rail_lldp_pfc>},
    {K::rail_lldp_mtu, rail<checks::rail_lldp_mtu>},
    {K::rail_lldp_vlan, rail<checks::rail_lldp_vlan>},
    {K::rail_bgp, rail<verify_bgp_session>},
    {K::rail_bgp_prefixes, rail<verify_bgp_prefixes>},
    {K::rail_route, rail<verify_rail_route>},
    {K::rails_cross_rdma_write, node<checks::cross_rdma_write>},
    {K::rails_unit, node<checks::rails_unit>},
    {K::tenant_vxlan, tenant<verify_tenant_vxlan>},
    {K::tenant_vtep, tenant<verify_tenant_vtep>},
    {K::tenant_isolation, tenant<verify_tenant_isolation>},
    {K::nvmeof_connected, nvmeof<verify_nvmeof_connected>},
    {K::nvmeof_namespace_read, nvmeof<verify_nvmeof_namespace>},
    {K::gpudirect_peermem, node<verify_peermem>},
    {K::gpudirect_acs, bridge_acs},
    {K::nccl_all_reduce, node<checks::nccl_all_reduce>},
    {K::apply_failed, not_planned},
    {K::other, not_planned},
}};

constexpr bool evaluators_in_enum_order() {
  for (std::size_t i = 0; i < kEvaluators.size(); ++i)
    if (static_cast<std::size_t>(kEvaluators[i].kind) != i) return false;
  return true;
}
static_assert(evaluators_in_enum_order(), "kEvaluators must give every CheckKind its evaluator, in enum order");

bool evaluate(const VerifyContext& ctx, CheckResult& r) {
  return kEvaluators[static_cast<std::size_t>(r.id.kind)].evaluate(ctx, r.id, r);
}

// So that no one reads a lab pass as hardware's: the emulating module is named on the check.
void name_emulation(const VerifyContext& ctx, CheckResult& r) {
  if (ctx.nvml && ctx.nvml->stand_in && has_trait(r.id.kind, kReadsNvml)) {
    r.detail += std::string(r.detail.empty() ? "" : "; ") + "read from " + *ctx.nvml->stand_in + ", not from a GPU";
    return;
  }
  const RailPlan* rail = r.id.scope() == CheckScope::rail ? rail_of(ctx.plan, r.id.index) : nullptr;
  if (!rail || !has_trait(r.id.kind, kReadsDcb)) return;
  std::vector<std::string> ports = rail->bond_ports.empty() ? std::vector<std::string>{rail->ifname} : rail->bond_ports;
  for (const auto& nic : ctx.now.nics)
    if (nic.dcb_emulated_by && std::find(ports.begin(), ports.end(), nic.ifname) != ports.end()) {
      r.detail += std::string(r.detail.empty() ? "" : "; ") + "DCB emulated in software by " + *nic.dcb_emulated_by +
                  " (lab stand-in, not hardware)";
      return;
    }
}

}  // namespace

std::vector<CheckResult> verify(const VerifyContext& given) {
  // Every rail's pause counters sampled first, together: the checks between take part of
  // the interval, and the rails share it rather than waiting one each.
  VerifyContext ctx = given;
  PauseSamples pause_first;
  if (!ctx.pause_first) {
    pause_first = first_pause_samples(ctx);
    ctx.pause_first = &pause_first;
  }
  // The checks that wait for the far end, the LLDP neighbours heard from planning on, are
  // evaluated last: a leaf that speaks late is waited for while the rest runs (the data
  // path's writes among it), not before every check of the rails after it. The results keep
  // the plan's order.
  const auto& planned = ctx.plan.checks;
  std::vector<std::size_t> order(planned.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return !has_trait(planned[i].id.kind, kWaitsForFarEnd); });
  std::vector<std::optional<CheckResult>> results(planned.size());
  for (std::size_t i : order) {
    CheckResult r = checks::start(planned[i]);
    auto t = std::chrono::steady_clock::now();
    bool evaluated = evaluate(ctx, r);
    // --verbose: which checks a slow verify spends its time on.
    spdlog::debug("verify: {} took {} ms", r.name(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count());
    if (!evaluated) {
      r.status = CheckStatus::skip;
      r.detail = "this agent has no evaluator for the check";
    }
    name_emulation(ctx, r);
    // A check the recipe does not require never fails the node: it warns.
    if (!r.required && r.status == CheckStatus::fail) r.status = CheckStatus::warn;
    results[i] = std::move(r);
  }
  std::vector<CheckResult> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace railyard
