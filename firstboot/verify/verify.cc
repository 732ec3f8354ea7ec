#include "verify/verify.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>

#include <spdlog/spdlog.h>

#include "checks/data_path.h"
#include "checks/gpu_health.h"
#include "checks/hardware.h"
#include "checks/lldp.h"
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

// Evaluates one check; false when this agent has no evaluator for it (a kind without one,
// or a rail or target the plan does not have).
bool evaluate(const VerifyContext& ctx, CheckResult& r) {
  using K = CheckKind;
  const CheckId& id = r.id;
  const RailPlan* rail = id.scope() == CheckScope::rail ? rail_of(ctx.plan, id.index) : nullptr;
  const NvmeofConnection* nvme = id.scope() == CheckScope::nvmeof ? connection_of(ctx.plan, id.index) : nullptr;
  if ((id.scope() == CheckScope::rail && !rail) || (id.scope() == CheckScope::nvmeof && !nvme)) return false;
  switch (id.kind) {
    case K::gpu_count: checks::gpu_count(ctx, r); return true;
    case K::gpu_model: checks::gpu_model(ctx, r); return true;
    case K::gpu_pcie_link: checks::gpu_pcie_link(ctx, id.index, r); return true;
    case K::gpu_nvml: checks::gpu_nvml(ctx, id.index, r); return true;
    case K::gpu_persistence: checks::gpu_persistence(ctx, id.index, r); return true;
    case K::gpu_ecc: checks::gpu_ecc(ctx, id.index, r); return true;
    case K::gpu_row_remap: checks::gpu_row_remap(ctx, id.index, r); return true;
    case K::gpu_xid: checks::gpu_xid(ctx, id.index, r); return true;
    case K::gpu_throttle: checks::gpu_throttle(ctx, id.index, r); return true;
    case K::gpu_temperature: checks::gpu_temperature(ctx, id.index, r); return true;
    case K::gpu_nvml_pcie: checks::gpu_nvml_pcie(ctx, id.index, r); return true;
    case K::gpu_nvlink: checks::gpu_nvlink(ctx, id.index, r); return true;
    case K::rails_count: checks::rails_count(ctx, r); return true;
    case K::rail_affinity: checks::rail_affinity(ctx, *rail, r); return true;
    case K::rail_gpu_topology: checks::rail_gpu_topology(ctx, *rail, r); return true;
    case K::rail_pcie_link: checks::rail_pcie_link(ctx, *rail, r); return true;
    case K::rail_link: verify_link(ctx, *rail, r); return true;
    case K::rail_speed: checks::rail_speed(ctx, *rail, r); return true;
    case K::rail_mtu: verify_mtu(ctx, *rail, r); return true;
    case K::rail_vlan: verify_vlan(ctx, *rail, r); return true;
    case K::rail_address: verify_address(ctx, *rail, r); return true;
    case K::rail_no_default_route: verify_no_default_route(ctx, *rail, r); return true;
    case K::rail_pfc: on_ports(ctx, *rail, r, verify_pfc); return true;
    case K::rail_trust: on_ports(ctx, *rail, r, verify_trust); return true;
    case K::rail_dscp_map: on_ports(ctx, *rail, r, verify_dscp_map); return true;
    case K::rail_ecn: on_ports(ctx, *rail, r, verify_ecn); return true;
    case K::rail_roce_tos: verify_roce_tos(ctx, *rail, r); return true;
    case K::rail_storm_prevention: on_ports(ctx, *rail, r, verify_storm_prevention); return true;
    case K::rail_rdma_port: checks::rdma_port(ctx, *rail, r); return true;
    case K::rail_roce_v2_gid: checks::roce_v2_gid(ctx, *rail, r); return true;
    case K::rail_rdma_write: checks::rdma_write(ctx, *rail, r); return true;
    case K::rail_gpudirect_write: checks::gpudirect_write(ctx, *rail, r); return true;
    case K::rail_pause_storm: on_ports(ctx, *rail, r, verify_pause_storm); return true;
    case K::rail_lldp: checks::rail_lldp(ctx, *rail, r); return true;
    case K::rail_lldp_pfc: checks::rail_lldp_pfc(ctx, *rail, r); return true;
    case K::rail_lldp_mtu: checks::rail_lldp_mtu(ctx, *rail, r); return true;
    case K::rail_lldp_vlan: checks::rail_lldp_vlan(ctx, *rail, r); return true;
    case K::rail_bgp: verify_bgp_session(ctx, *rail, r); return true;
    case K::rail_bgp_prefixes: verify_bgp_prefixes(ctx, *rail, r); return true;
    case K::rail_route: verify_rail_route(ctx, *rail, r); return true;
    case K::rails_cross_rdma_write: checks::cross_rdma_write(ctx, r); return true;
    case K::tenant_vxlan:
      if (!ctx.plan.tenant) return false;
      verify_tenant_vxlan(ctx, r);
      return true;
    case K::tenant_vtep:
      if (!ctx.plan.tenant) return false;
      verify_tenant_vtep(ctx, r);
      return true;
    case K::tenant_isolation:
      if (!ctx.plan.tenant) return false;
      verify_tenant_isolation(ctx, r);
      return true;
    case K::nvmeof_connected: verify_nvmeof_connected(ctx, *nvme, r); return true;
    case K::nvmeof_namespace_read: verify_nvmeof_namespace(ctx, *nvme, r); return true;
    case K::gpudirect_peermem: verify_peermem(ctx, r); return true;
    case K::gpudirect_acs: verify_acs(ctx, id.subject, r); return true;
    case K::nccl_all_reduce: checks::nccl_all_reduce(ctx, r); return true;
    case K::devices_ready:  // the wait before planning, never planned
    case K::apply_failed:   // apply's own results, never planned
    case K::other: return false;
  }
  return false;
}

// The checks that may wait for the far end of a rail to speak.
bool waits_for_far_end(CheckKind k) {
  using K = CheckKind;
  return k == K::rail_lldp || k == K::rail_lldp_pfc || k == K::rail_lldp_mtu || k == K::rail_lldp_vlan;
}

// The checks whose answer comes from the NIC's DCB, which a lab stand-in may emulate.
bool reads_dcb(CheckKind k) {
  using K = CheckKind;
  return k == K::rail_pfc || k == K::rail_trust || k == K::rail_dscp_map || k == K::rail_ecn ||
         k == K::rail_storm_prevention || k == K::rail_pause_storm;
}

// So that no one reads a lab pass as hardware's: the emulating module is named on the check.
void name_emulation(const VerifyContext& ctx, CheckResult& r) {
  if (ctx.nvml && ctx.nvml->stand_in && checks::reads_nvml(r.id.kind)) {
    r.detail += std::string(r.detail.empty() ? "" : "; ") + "read from " + *ctx.nvml->stand_in + ", not from a GPU";
    return;
  }
  const RailPlan* rail = r.id.scope() == CheckScope::rail ? rail_of(ctx.plan, r.id.index) : nullptr;
  if (!rail || !reads_dcb(r.id.kind)) return;
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
                        [&](std::size_t i) { return !waits_for_far_end(planned[i].id.kind); });
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
