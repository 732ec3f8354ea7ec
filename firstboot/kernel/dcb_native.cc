#include "kernel/dcb_native.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <utility>

namespace railyard {

Outcome<IeeeState> NativeDcb::get(const std::string& ifname, const std::string& what) {
  // DCB answers GET and SET alike with a message of the request's own type.
  Outcome<Bytes> reply = socket_.transact(RTM_GETDCB, RTM_GETDCB, encode_ieee_get(ifname), what);
  if (!reply.ok()) return Outcome<IeeeState>::fail(reply);
  Outcome<IeeeState> state = decode_ieee_get_reply(*reply);
  if (!state.ok()) return Outcome<IeeeState>::fail(state, what);
  return state;
}

Status NativeDcb::set(const Bytes& payload, const std::string& what) {
  Outcome<Bytes> reply = socket_.transact(RTM_SETDCB, RTM_SETDCB, payload, what);
  if (!reply.ok()) return reply.status();
  Outcome<int> err = decode_ieee_set_reply(*reply);
  if (!err.ok()) return Status::fail(err.code(), what + ": " + err.error());
  return *err == 0 ? success() : Status::from_errno(*err, what);
}

Outcome<IeeePfc> NativeDcb::pfc(const std::string& ifname) {
  std::string what = ifname + ": RTM_GETDCB IEEE PFC";
  Outcome<IeeeState> state = get(ifname, what);
  if (!state.ok()) return Outcome<IeeePfc>::fail(state);
  // A driver without ieee_getpfc leaves the attribute out.
  if (!state->pfc) return Outcome<IeeePfc>::fail(EOPNOTSUPP, what + ": the driver reports no PFC");
  return Outcome<IeeePfc>(*state->pfc);
}

Status NativeDcb::set_pfc(const std::string& ifname, const IeeePfc& pfc) {
  return set(encode_ieee_set_pfc(ifname, pfc), ifname + ": RTM_SETDCB IEEE PFC");
}

Outcome<std::vector<DcbApp>> NativeDcb::apps(const std::string& ifname) {
  Outcome<IeeeState> state = get(ifname, ifname + ": RTM_GETDCB IEEE APP");
  if (!state.ok()) return Outcome<std::vector<DcbApp>>::fail(state);
  return Outcome<std::vector<DcbApp>>(std::move(state->apps));
}

// add_apps means: afterwards, each (selector, protocol) in `apps` maps to exactly the given
// priority. IEEE 802.1Qaz lets one DSCP carry several priorities: the kernel's generic app
// table (dcb_ieee_setapp) adds an entry beside an older one for the same DSCP, and refuses
// an exact duplicate with EEXIST; mlx5's own ieee_setapp replaces the older entry instead.
// So: read the table, IEEE_SET the entries not already there, re-read, and IEEE_DEL
// (DCB_CMD_IEEE_DEL) the stale entries still there for the same selector and protocol.
// Deleting after adding, never before, keeps mlx5 from falling back to PCP trust, which it
// does when its last DSCP entry goes; on mlx5 nothing is left to delete.
Status NativeDcb::add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) {
  Outcome<std::vector<DcbApp>> before = this->apps(ifname);
  if (!before.ok()) return before.status();
  std::vector<DcbApp> missing;
  for (const DcbApp& a : apps)
    if (std::find(before->begin(), before->end(), a) == before->end()) missing.push_back(a);
  if (!missing.empty())
    if (Status s = set(encode_ieee_set_apps(ifname, missing), ifname + ": RTM_SETDCB IEEE APP"); !s.ok()) return s;

  Outcome<std::vector<DcbApp>> now = missing.empty() ? std::move(before) : this->apps(ifname);
  if (!now.ok()) return now.status();
  std::map<std::pair<std::uint8_t, std::uint16_t>, std::uint8_t> wanted;
  for (const DcbApp& a : apps) wanted[{a.selector, a.protocol}] = a.priority;
  std::vector<DcbApp> stale;
  for (const DcbApp& a : *now) {
    auto it = wanted.find({a.selector, a.protocol});
    if (it != wanted.end() && it->second != a.priority) stale.push_back(a);
  }
  if (stale.empty()) return success();
  return set(encode_ieee_del_apps(ifname, stale), ifname + ": RTM_SETDCB IEEE DEL APP");
}

}  // namespace railyard
