// apply_dscp_app: each rail's DSCP → priority map as DCB application priority entries
// (selector DSCP), on the physical interface. Only the DSCP values whose entries differ or
// are missing are added. Dcb::add_apps replaces: an added entry removes the entries that
// mapped the same DSCP elsewhere (the native one deletes them with DCB_CMD_IEEE_DEL after
// adding; see dcb_native.cc), so this applier never deletes on its own.
#include "objects/dscp_app.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "kernel/dcb_message.h"
#include "objects/result.h"

namespace railyard {

namespace {

// RoCE traffic's entry: its DSCP to the lossless priority.
DcbApp roce_entry(const RailPlan& rail) {
  return {kDcbAppSelDscp, static_cast<std::uint8_t>(rail.pfc_priority), static_cast<std::uint16_t>(rail.roce_dscp)};
}

// The priorities each DSCP value maps to now (several are possible).
std::map<int, std::set<int>> dscp_table(const std::vector<DcbApp>& apps) {
  std::map<int, std::set<int>> t;
  for (const DcbApp& a : apps)
    if (a.selector == kDcbAppSelDscp) t[a.protocol].insert(a.priority);
  return t;
}

// The planned entries the table does not hold as the DSCP value's only mapping.
std::vector<DcbApp> differing(const std::vector<DcbApp>& want, const std::vector<DcbApp>& apps) {
  std::map<int, std::set<int>> now = dscp_table(apps);
  std::vector<DcbApp> out;
  for (const DcbApp& a : want)
    if (now[a.protocol] != std::set<int>{a.priority}) out.push_back(a);
  return out;
}

std::string as_planned(std::size_t wrong, std::size_t total) {
  return std::to_string(total - wrong) + "/" + std::to_string(total) + " DSCP entries as planned";
}

// "dscp 26→3, dscp 48→6" (the first few, then how many more).
std::string list(const std::vector<DcbApp>& apps) {
  const std::size_t shown = 8;
  std::string s;
  for (std::size_t i = 0; i < apps.size() && i < shown; ++i)
    s += (i ? ", dscp " : "dscp ") + std::to_string(apps[i].protocol) + "→" + std::to_string(apps[i].priority);
  if (apps.size() > shown) s += " and " + std::to_string(apps.size() - shown) + " more";
  return s;
}

}  // namespace

void apply_dscp_app(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const RailPlan& rail : plan.rails) {
    // With PCP trust the DSCP map stays unset: on upstream mlx5 the first DSCP entry would
    // switch the port to DSCP trust.
    if (rail.pfc_enable == 0 || rail.dscp_to_priority.empty() || rail.trust != Trust::dscp) continue;
    const std::string object = rail_label(rail) + ": DSCP to priority";
    std::vector<DcbApp> want;
    bool valid = rail.dscp_to_priority.size() <= 64;
    for (std::size_t d = 0; d < rail.dscp_to_priority.size(); ++d) {
      int prio = rail.dscp_to_priority[d];
      valid = valid && prio >= 0 && prio < 8;
      want.push_back({kDcbAppSelDscp, static_cast<std::uint8_t>(prio), static_cast<std::uint16_t>(d)});
    }
    const std::string after = as_planned(0, want.size());
    if (!valid) {
      out.push_back(
          {object, ChangeOutcome::failed, "", after, "the plan's map is not 64 DSCP values to priorities 0-7"});
      continue;
    }
    Outcome<std::vector<DcbApp>> now = kernel.dcb.apps(rail.ifname);
    if (!now.ok()) {
      out.push_back(change_from(object, now.status(), "", after));
      continue;
    }
    const std::vector<DcbApp> add = differing(want, *now);
    const std::string before = as_planned(add.size(), want.size());
    if (add.empty()) {
      out.push_back({object, ChangeOutcome::unchanged, before, after, ""});
      continue;
    }
    Status s = kernel.dcb.add_apps(rail.ifname, add);
    if (s.ok()) {  // read back: a driver may take the entries and map them differently
      Outcome<std::vector<DcbApp>> again = kernel.dcb.apps(rail.ifname);
      if (!again.ok()) s = again.status();
      else if (std::vector<DcbApp> wrong = differing(want, *again); !wrong.empty())
        s = Status::fail(EIO, rail.ifname + ": DSCP entries set, but these read back otherwise: " + list(wrong));
    }
    Change c = change_from(object, s, before, after);
    if (s.ok()) c.detail = "added " + list(add);
    out.push_back(std::move(c));
  }
}

void verify_dscp_map(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto apps = ctx.kernel.dcb.apps(rail.ifname);
  if (!apps.ok()) {
    checks::from_status(r, apps.status());
    return;
  }
  const DcbApp want = roce_entry(rail);
  const std::string entry = std::to_string(rail.roce_dscp) + " → " + std::to_string(rail.pfc_priority);
  if (std::find(apps->begin(), apps->end(), want) != apps->end())
    checks::pass(r, "DSCP " + std::to_string(rail.roce_dscp) + " → priority " + std::to_string(rail.pfc_priority));
  else checks::fail(r, std::to_string(apps->size()) + " app entries, none DSCP " + entry);
}

}  // namespace railyard
