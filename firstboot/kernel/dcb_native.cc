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

namespace {

// One request's answers, filled by the libnl callbacks below.
struct Exchange {
  int reply_type = 0;
  Bytes reply;
  int err = 0;  // the kernel's errno from NLMSG_ERROR
  bool acked = false;
};

int on_valid(nl_msg* msg, void* arg) {
  auto* x = static_cast<Exchange*>(arg);
  nlmsghdr* h = nlmsg_hdr(msg);
  if (h->nlmsg_type == x->reply_type) {
    const auto* p = static_cast<const std::uint8_t*>(nlmsg_data(h));
    x->reply.assign(p, p + nlmsg_datalen(h));
  }
  return NL_OK;
}

int on_ack(nl_msg*, void* arg) {
  static_cast<Exchange*>(arg)->acked = true;
  return NL_STOP;
}

int on_error(sockaddr_nl*, nlmsgerr* e, void* arg) {
  static_cast<Exchange*>(arg)->err = -e->error;
  return NL_STOP;
}

Status protocol_error(const std::string& what, const std::string& why) {
  return Status::fail(EPROTO, what + ": " + why);
}

}  // namespace

RouteSocket::~RouteSocket() { close(); }

void RouteSocket::close() {
  if (sock_) nl_socket_free(sock_);
  sock_ = nullptr;
}

Outcome<Bytes> RouteSocket::transact(int type, int reply_type, const Bytes& payload, const std::string& what) {
  using Result = Outcome<Bytes>;
  if (!sock_) {
    sock_ = nl_socket_alloc();
    if (!sock_) return Result::fail(ENOMEM, what + ": cannot allocate a netlink socket");
    if (int rc = nl_connect(sock_, NETLINK_ROUTE); rc < 0) {
      close();
      return Result::fail(EIO, what + ": netlink: " + nl_geterror(rc));
    }
  }
  Exchange x;
  x.reply_type = reply_type;
  nl_cb* cb = nl_cb_alloc(NL_CB_DEFAULT);
  if (!cb) return Result::fail(ENOMEM, what + ": cannot allocate netlink callbacks");
  nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
  nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &x);
  nl_cb_err(cb, NL_CB_CUSTOM, on_error, &x);

  nl_msg* msg = nlmsg_alloc_simple(type, NLM_F_REQUEST);
  if (!msg) {
    nl_cb_put(cb);
    return Result::fail(ENOMEM, what + ": cannot allocate a netlink message");
  }
  int rc = nlmsg_append(msg, const_cast<std::uint8_t*>(payload.data()), payload.size(), NLMSG_ALIGNTO);
  if (rc >= 0) rc = nl_send_auto(sock_, msg);  // adds NLM_F_ACK: the ack ends the exchange
  nlmsg_free(msg);
  if (rc < 0) {
    nl_cb_put(cb);
    close();
    return Result::fail(EIO, what + ": netlink send: " + nl_geterror(rc));
  }

  // The kernel answers with the reply, then the ack; or with NLMSG_ERROR alone when it
  // refuses (for DCB: no such device, no DCB on it).
  Status failure = success();
  while (!x.acked && x.err == 0) {
    rc = nl_recvmsgs_report(sock_, cb);  // how many messages it handled (nl_recvmsgs says 0)
    if (x.acked || x.err != 0) break;
    if (rc <= 0) {
      failure = protocol_error(what, rc < 0 ? std::string("netlink receive: ") + nl_geterror(rc) : "no answer");
      break;
    }
  }
  nl_cb_put(cb);
  if (!failure.ok()) {
    close();  // the socket may hold stray answers: start the next request afresh
    return Result::fail(failure);
  }
  if (x.err != 0) return Result::from_errno(x.err, what);
  if (x.reply.empty()) return Result::fail(protocol_error(what, "acknowledged without a reply"));
  return Result(std::move(x.reply));
}

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
