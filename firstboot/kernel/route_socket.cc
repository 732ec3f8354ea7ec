#include "kernel/route_socket.h"

#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <cerrno>
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

}  // namespace railyard
