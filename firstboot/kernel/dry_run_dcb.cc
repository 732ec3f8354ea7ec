#include "text.h"
#include "kernel/dry_run_dcb.h"

#include <algorithm>
#include <cstdio>

#include "kernel/dcb_message.h"

namespace railyard {

namespace {

std::string describe(const DcbApp& a) {
  if (a.selector == kDcbAppSelDscp) return "dscp " + std::to_string(a.protocol) + " prio " + std::to_string(a.priority);
  return "selector " + std::to_string(a.selector) + " protocol " + std::to_string(a.protocol) + " prio " +
         std::to_string(a.priority);
}

// An entry replaces any with the same selector and protocol: what add_apps promises.
void merge(std::vector<DcbApp>& table, const DcbApp& a) {
  std::erase_if(table, [&](const DcbApp& t) { return t.selector == a.selector && t.protocol == a.protocol; });
  table.push_back(a);
}

}  // namespace

Outcome<IeeePfc> DryRunDcb::pfc(const std::string& ifname) {
  Outcome<IeeePfc> now = real_.pfc(ifname);
  if (auto it = pfc_.find(ifname); now.ok() && it != pfc_.end()) now = it->second;
  return now;
}

Status DryRunDcb::set_pfc(const std::string& ifname, const IeeePfc& pfc) {
  log_.push_back("would set PFC on " + ifname + ": pfc_en " + hex(pfc.pfc_en, 2));
  pfc_[ifname] = pfc;
  return success();
}

Outcome<std::vector<DcbApp>> DryRunDcb::apps(const std::string& ifname) {
  Outcome<std::vector<DcbApp>> now = real_.apps(ifname);
  if (auto it = added_.find(ifname); now.ok() && it != added_.end())
    for (const DcbApp& a : it->second) merge(*now, a);
  return now;
}

Status DryRunDcb::add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) {
  std::string line = "would add DCB app entries on " + ifname + ":";
  for (std::size_t i = 0; i < apps.size(); ++i) line += (i ? ", " : " ") + describe(apps[i]);
  log_.push_back(line);
  for (const DcbApp& a : apps) merge(added_[ifname], a);
  return success();
}

}  // namespace railyard
