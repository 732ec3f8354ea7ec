// Dcb on the running kernel: RTM_GETDCB / RTM_SETDCB over a NETLINK_ROUTE socket (libnl).
#pragma once

#include <string>
#include <vector>

#include "kernel/dcb.h"
#include "kernel/dcb_message.h"
#include "kernel/route_socket.h"

namespace railyard {

// Errors carry the kernel's errno (EOPNOTSUPP for a device without DCB, ENODEV for no such
// device) and say which interface and operation, e.g.
// "ens1f0np0: RTM_SETDCB IEEE PFC: Operation not supported".
class NativeDcb : public Dcb {
 public:
  Outcome<IeeePfc> pfc(const std::string& ifname) override;
  Status set_pfc(const std::string& ifname, const IeeePfc& pfc) override;
  Outcome<std::vector<DcbApp>> apps(const std::string& ifname) override;
  // Adds `apps` and removes entries they replace: see dcb_native.cc.
  Status add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) override;

 private:
  Outcome<IeeeState> get(const std::string& ifname, const std::string& what);
  Status set(const Bytes& payload, const std::string& what);

  RouteSocket socket_;
};

}  // namespace railyard
