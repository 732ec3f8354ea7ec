// rtnetlink's request and answer, for the messages libnl-route has no object for (DCB).
#pragma once

#include <string>

#include "kernel/dcb_message.h"
#include "outcome.h"

struct nl_sock;

namespace railyard {

// One rtnetlink request and its answer at a time, over a NETLINK_ROUTE socket (libnl)
// connected on first use.
class RouteSocket {
 public:
  RouteSocket() = default;
  ~RouteSocket();
  RouteSocket(const RouteSocket&) = delete;
  RouteSocket& operator=(const RouteSocket&) = delete;

  // Sends `payload` (what follows struct nlmsghdr) as a `type` request and returns the payload
  // of the answer of type `reply_type`, or the kernel's errno with `what` in front of its text.
  Outcome<Bytes> transact(int type, int reply_type, const Bytes& payload, const std::string& what);

 private:
  void close();
  nl_sock* sock_ = nullptr;
};

}  // namespace railyard
