// apply_storm: the host's PFC storm prevention timeout (ethtool tunable
// pfc-prevention-tout) on each rail that has PFC, on the physical interface.
#include "objects/storm.h"

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "objects/result.h"

namespace railyard {

namespace {

std::string ms(int v) { return std::to_string(v) + " ms"; }

}  // namespace

void apply_storm(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const RailPlan& rail : plan.rails) {
    if (rail.pfc_enable == 0) continue;
    const std::string object = rail_label(rail) + ": PFC storm prevention";
    const int want = rail.storm_timeout_ms;
    if (want < 0 || want > 0xffff) {
      out.push_back({object, ChangeOutcome::failed, "", ms(want), "does not fit the u16 tunable"});
      continue;
    }
    Outcome<std::uint16_t> now = kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
    if (!now.ok()) {
      out.push_back(change_from(object, now.status(), "", ms(want)));
      continue;
    }
    const int before = *now;
    if (before == want) {
      out.push_back({object, ChangeOutcome::unchanged, ms(before), ms(want), ""});
      continue;
    }
    Status s = kernel.ethtool.set_tunable_u16(rail.ifname, kEthtoolPfcPreventionTout, static_cast<std::uint16_t>(want));
    if (s.ok()) {  // drivers clamp or refuse quietly: read back
      Outcome<std::uint16_t> again = kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
      if (!again.ok()) s = again.status();
      else if (*again != want)
        s = Status::fail(EIO, rail.ifname + ": storm prevention set, but reads back " + ms(*again));
    }
    Change c = change_from(object, s, ms(before), ms(want));
    if (s.ok()) c.detail = "pfc-prevention-tout " + ms(before) + " → " + ms(want);
    out.push_back(std::move(c));
  }
}

void verify_storm_prevention(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto v = ctx.kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
  if (!v.ok()) checks::from_status(r, v.status());
  else if (*v == rail.storm_timeout_ms) checks::pass(r, ms(*v));
  else checks::fail(r, ms(*v));
}

void verify_pause_storm(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  // Two samples of the lossless priority's pause counters, the recipe's interval apart.
  const SelftestSpec& st = ctx.plan.selftest;
  std::string rx = "rx_prio" + std::to_string(rail.pfc_priority) + "_pause";
  std::string tx = "tx_prio" + std::to_string(rail.pfc_priority) + "_pause";
  const PauseSamples::Sample* taken = nullptr;
  if (ctx.pause_first) {
    auto it = ctx.pause_first->by_port.find(rail.ifname);
    if (it != ctx.pause_first->by_port.end()) taken = &it->second;
  }
  const Clock::time_point first_at = taken ? taken->at : ctx.clock.now();
  auto first = taken ? taken->stats : ctx.kernel.ethtool.stats(rail.ifname);
  if (!first.ok()) {
    checks::from_status(r, first.status());
    return;
  }
  if (!first->count(rx) || !first->count(tx)) {
    r.status = CheckStatus::unsupported;
    r.observed = "no " + rx + "/" + tx + " counters";
    r.detail = "the driver does not count pauses per priority";
    return;
  }
  const std::chrono::milliseconds interval{std::min(st.pause_sample_ms, st.check_timeout_ms)};
  const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.clock.now() - first_at);
  if (since < interval) ctx.clock.sleep(interval - since);
  const auto elapsed = ctx.clock.now() - first_at;
  auto second = ctx.kernel.ethtool.stats(rail.ifname);
  if (!second.ok()) {
    checks::from_status(r, second.status());
    return;
  }
  auto rx2 = second->find(rx), tx2 = second->find(tx);
  if (rx2 == second->end() || tx2 == second->end()) {
    checks::fail(r, "counters vanished", "the driver stopped reporting " + rx + "/" + tx + " between samples");
    return;
  }
  if (rx2->second < first->at(rx) || tx2->second < first->at(tx)) {
    checks::warn(r, "counters went backwards", "the pause counters were reset between samples; no rate measured");
    return;
  }
  // Over the time the samples were actually apart: at least the interval.
  double seconds = std::max(std::chrono::duration<double>(elapsed).count(), interval.count() / 1000.0);
  double rx_pps = static_cast<double>(rx2->second - first->at(rx)) / seconds;
  double tx_pps = static_cast<double>(tx2->second - first->at(tx)) / seconds;
  std::string obs =
      "rx " + std::to_string(static_cast<long>(rx_pps)) + "/s, tx " + std::to_string(static_cast<long>(tx_pps)) + "/s";
  if (rx_pps < st.pause_storm_pps && tx_pps < st.pause_storm_pps) checks::pass(r, obs);
  else
    checks::fail(r, obs,
                 tx_pps >= st.pause_storm_pps
                     ? "this NIC is sending a pause storm: a stuck receive queue; it will freeze the switch port"
                     : "the switch pauses this NIC continuously: a peer stuck sending pauses, or congestion "
                       "spreading through the fabric");
}

PauseSamples first_pause_samples(const VerifyContext& ctx) {
  PauseSamples out;
  for (const auto& planned : ctx.plan.checks) {
    if (planned.id.kind != CheckKind::rail_pause_storm || planned.id.scope() != CheckScope::rail) continue;
    for (const auto& rail : ctx.plan.rails) {
      if (rail.index != planned.id.index) continue;
      for (const auto& view : port_views(rail))
        if (!out.by_port.count(view.ifname))
          out.by_port.emplace(view.ifname,
                              PauseSamples::Sample{ctx.kernel.ethtool.stats(view.ifname), ctx.clock.now()});
    }
  }
  return out;
}

}  // namespace railyard
