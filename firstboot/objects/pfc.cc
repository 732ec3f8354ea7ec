// apply_pfc: PFC on each rail's lossless priorities, read-modify-write of struct
// ieee_pfc on the physical interface (DCB lives on the port, not on its VLAN netdev).
#include "objects/pfc.h"

#include <cerrno>
#include <cstdio>

#include "text.h"
#include "kernel/dcb_message.h"
#include "objects/result.h"

namespace railyard {

namespace {

// The kernel may accept a SET and change nothing (a driver without ieee_setpfc): read back.
Status confirm(Dcb& dcb, const std::string& ifname, std::uint8_t want) {
  Outcome<IeeePfc> now = dcb.pfc(ifname);
  if (!now.ok()) return now.status();
  if (now->pfc_en != want) return Status::fail(EIO, ifname + ": PFC set, but pfc_en reads back " + hex(now->pfc_en, 2));
  return success();
}

}  // namespace

void apply_pfc(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const RailPlan& rail : plan.rails) {
    if (rail.pfc_enable == 0) continue;
    const std::string object = rail_label(rail) + ": PFC";
    if (rail.pfc_enable < 0 || rail.pfc_enable > 0xff) {
      out.push_back(
          {object, ChangeOutcome::failed, "", std::to_string(rail.pfc_enable), "not a bitmap of 8 priorities"});
      continue;
    }
    const auto want = static_cast<std::uint8_t>(rail.pfc_enable);
    Outcome<IeeePfc> now = kernel.dcb.pfc(rail.ifname);
    if (!now.ok()) {
      out.push_back(change_from(object, now.status(), "", hex(want, 2)));
      continue;
    }
    const IeeePfc before = *now;
    if (before.pfc_en == want) {
      out.push_back({object, ChangeOutcome::unchanged, hex(before.pfc_en, 2), hex(want, 2), ""});
      continue;
    }
    IeeePfc next = before;  // keeps delay (the cable-length allowance) and mbc
    next.pfc_cap = kPfcCap;
    next.pfc_en = want;
    Status s = kernel.dcb.set_pfc(rail.ifname, next);
    if (s.ok()) s = confirm(kernel.dcb, rail.ifname, want);
    Change c = change_from(object, s, hex(before.pfc_en, 2), hex(want, 2));
    if (s.ok())
      c.detail = "pfc_en " + hex(want, 2) + ", pfc_cap " + std::to_string(kPfcCap) + "; delay " +
                 std::to_string(before.delay) + " and mbc " + std::to_string(before.mbc) + " kept";
    out.push_back(std::move(c));
  }
}

void verify_pfc(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto pfc = ctx.kernel.dcb.pfc(rail.ifname);
  if (!pfc.ok()) checks::from_status(r, pfc.status());
  else if (pfc->pfc_en == rail.pfc_enable) checks::pass(r, "pfc_en " + hex(pfc->pfc_en, 2));
  else
    checks::fail(r, "pfc_en " + hex(pfc->pfc_en, 2),
                 "PFC is not as applied: the NIC may be in DCBX firmware (willing) mode, or lldpad overrides it");
}

}  // namespace railyard
