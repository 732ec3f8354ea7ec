// apply_storm: the host's PFC storm prevention timeout (ethtool tunable
// pfc-prevention-tout) on each rail that has PFC, on the physical interface.
#include <cerrno>

#include "apply.h"

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
      out.push_back({object, Outcome::failed, "", ms(want), "does not fit the u16 tunable"});
      continue;
    }
    Expected<std::uint16_t> now = kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
    if (!now.ok()) {
      out.push_back(change_from(object, now.status, "", ms(want)));
      continue;
    }
    const int before = *now.value;
    if (before == want) {
      out.push_back({object, Outcome::unchanged, ms(before), ms(want), ""});
      continue;
    }
    Status s = kernel.ethtool.set_tunable_u16(rail.ifname, kEthtoolPfcPreventionTout, static_cast<std::uint16_t>(want));
    if (s.ok()) {  // drivers clamp or refuse quietly: read back
      Expected<std::uint16_t> again = kernel.ethtool.tunable_u16(rail.ifname, kEthtoolPfcPreventionTout);
      if (!again.ok())
        s = again.status;
      else if (*again.value != want)
        s = Status::error(EIO, rail.ifname + ": storm prevention set, but reads back " + ms(*again.value));
    }
    Change c = change_from(object, s, ms(before), ms(want));
    if (s.ok()) c.detail = "pfc-prevention-tout " + ms(before) + " → " + ms(want);
    out.push_back(std::move(c));
  }
}

}  // namespace railyard
