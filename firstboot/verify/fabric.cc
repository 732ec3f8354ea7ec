// Checks read back from the NIC: PFC, trust, the DSCP map, ECN, RoCE ToS, storm
// prevention and the pause counters.
#include <algorithm>
#include <chrono>
#include <thread>

#include "checks.h"
#include "text.h"

namespace railyard::checks {

namespace {

void file_equals(const VerifyContext& ctx, CheckResult& r, const std::string& path, const std::string& want) {
  auto v = ctx.kernel.host.read_file(path);
  if (!v.ok()) from_status(r, v.status);
  else if (*v.value == want) pass(r, *v.value);
  else fail(r, *v.value);
}

}  // namespace

bool fabric(const VerifyContext& ctx, CheckResult& r) {
  auto rc = rail_check(ctx.plan, r.name);
  if (!rc.rail) return false;
  const RailPlan& rail = *rc.rail;
  const FabricSpec& f = ctx.recipe.fabric;
  if (rc.what == "pfc") {
    auto pfc = ctx.kernel.dcb.pfc(rail.ifname);
    if (!pfc.ok()) from_status(r, pfc.status);
    else if (pfc.value->pfc_en == rail.pfc_enable) pass(r, "pfc_en " + hex(pfc.value->pfc_en, 2));
    else
      fail(r, "pfc_en " + hex(pfc.value->pfc_en, 2),
           "PFC is not as applied: the NIC may be in DCBX firmware (willing) mode, or lldpad overrides it");
    return true;
  }
  if (rc.what == "dscp_map") {
    auto apps = ctx.kernel.dcb.apps(rail.ifname);
    if (!apps.ok()) {
      from_status(r, apps.status);
      return true;
    }
    DcbApp want{5, static_cast<std::uint8_t>(f.pfc_priority), static_cast<std::uint16_t>(f.roce_dscp)};
    if (std::find(apps.value->begin(), apps.value->end(), want) != apps.value->end())
      pass(r, "DSCP " + std::to_string(f.roce_dscp) + " → priority " + std::to_string(f.pfc_priority));
    else fail(r, std::to_string(apps.value->size()) + " app entries, none DSCP " + std::to_string(f.roce_dscp) + " → " +
                     std::to_string(f.pfc_priority));
    return true;
  }
  if (rc.what == "trust") {
    auto v = ctx.kernel.host.read_file("/sys/class/net/" + rail.ifname + "/qos/trust");
    if (v.ok()) {
      if (*v.value == rail.trust) pass(r, *v.value);
      else fail(r, *v.value);
      return true;
    }
    // Upstream mlx5 has no trust file: a DSCP app entry is what switches it to DSCP trust.
    auto apps = ctx.kernel.dcb.apps(rail.ifname);
    bool dscp = apps.ok() && std::any_of(apps.value->begin(), apps.value->end(), [](const DcbApp& a) { return a.selector == 5; });
    if (rail.trust == "dscp" && dscp) pass(r, "dscp", "implied by the DSCP app entries (no qos/trust file)");
    else from_status(r, apps.ok() ? v.status : apps.status);
    return true;
  }
  if (rc.what == "ecn") {
    std::string base = "/sys/class/net/" + rail.ifname + "/ecn/";
    std::string p = std::to_string(rail.ecn_priority);
    auto np = ctx.kernel.host.read_file(base + "roce_np/enable/" + p);
    auto rp = ctx.kernel.host.read_file(base + "roce_rp/enable/" + p);
    if (!np.ok()) from_status(r, np.status);
    else if (!rp.ok()) from_status(r, rp.status);
    else if (*np.value == "1" && *rp.value == "1") pass(r, "np 1, rp 1");
    else fail(r, "np " + *np.value + ", rp " + *rp.value);
    return true;
  }
  if (rc.what == "roce_tos") {
    std::string dev = rail.rdma_device;
    file_equals(ctx, r, "/sys/kernel/config/rdma_cm/" + dev + "/ports/" + std::to_string(rail.rdma_port) + "/default_roce_tos",
                std::to_string(rail.roce_tos));
    return true;
  }
  if (rc.what == "storm_prevention") {
    auto v = ctx.kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
    if (!v.ok()) from_status(r, v.status);
    else if (*v.value == rail.storm_timeout_ms) pass(r, std::to_string(*v.value) + " ms");
    else fail(r, std::to_string(*v.value) + " ms");
    return true;
  }
  if (rc.what == "pause_storm") {
    // Two samples of the RoCE priority's pause counters, the recipe's interval apart.
    std::string rx = "rx_prio" + std::to_string(f.pfc_priority) + "_pause";
    std::string tx = "tx_prio" + std::to_string(f.pfc_priority) + "_pause";
    auto first = ctx.kernel.ethtool.stats(rail.ifname);
    if (!first.ok()) {
      from_status(r, first.status);
      return true;
    }
    if (!first.value->count(rx) || !first.value->count(tx)) {
      r.status = CheckStatus::unsupported;
      r.observed = "no " + rx + "/" + tx + " counters";
      r.detail = "the driver does not count pauses per priority";
      return true;
    }
    int ms = std::min(ctx.recipe.selftest.pause_sample_ms, ctx.recipe.selftest.check_timeout_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    auto second = ctx.kernel.ethtool.stats(rail.ifname);
    if (!second.ok()) {
      from_status(r, second.status);
      return true;
    }
    auto rx2 = second.value->find(rx), tx2 = second.value->find(tx);
    if (rx2 == second.value->end() || tx2 == second.value->end()) {
      fail(r, "counters vanished", "the driver stopped reporting " + rx + "/" + tx + " between samples");
      return true;
    }
    if (rx2->second < first.value->at(rx) || tx2->second < first.value->at(tx)) {
      r.status = CheckStatus::warn;
      r.observed = "counters went backwards";
      r.detail = "the pause counters were reset between samples; no rate measured";
      return true;
    }
    double seconds = ms / 1000.0;
    double rx_pps = static_cast<double>(rx2->second - first.value->at(rx)) / seconds;
    double tx_pps = static_cast<double>(tx2->second - first.value->at(tx)) / seconds;
    std::string obs = "rx " + std::to_string(static_cast<long>(rx_pps)) + "/s, tx " + std::to_string(static_cast<long>(tx_pps)) + "/s";
    if (rx_pps < ctx.recipe.selftest.pause_storm_pps && tx_pps < ctx.recipe.selftest.pause_storm_pps) pass(r, obs);
    else fail(r, obs, tx_pps >= ctx.recipe.selftest.pause_storm_pps
                          ? "this NIC is sending a pause storm: a stuck receive queue; it will freeze the switch port"
                          : "the switch pauses this NIC continuously: congestion or a storm elsewhere in the fabric");
    return true;
  }
  return false;
}

}  // namespace railyard::checks
