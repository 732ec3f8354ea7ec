// The node's BGP speaker on routed rails: FRR's bgpd, started with the configuration the
// plan rendered (core/frr.h) and asked for its sessions in its own JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.h"

namespace railyard {

// One session as bgpd reports it; interface peers (BGP unnumbered) by their interface.
struct BgpSession {
  std::string interface;
  std::string state;           // Idle, Connect, Active, OpenSent, OpenConfirm or Established
  std::string peer;            // the leaf's IPv6 link-local address, once its router advertisement came
  std::int64_t remote_as = 0;  // 0 until an OPEN told it
  long long prefixes = -1;     // IPv4 unicast routes accepted from the leaf; -1: not known
  std::string last_error;      // why it last went down ("Waiting for peer OPEN", "BGP Notification send: …")
  std::string notification;    // the last NOTIFICATION received from the leaf ("OPEN Message Error/Bad Peer AS")
  long long up_ms = -1;        // time Established; -1 when not
  bool established() const { return state == "Established"; }
};

// FRR's `show bgp vrf default neighbors json`. An answer that is not that (vtysh printing an
// error, a daemon not running) is an error naming what came.
Outcome<std::vector<BgpSession>> parse_frr_neighbors(std::string_view json);

class Bgp {
 public:
  virtual ~Bgp() = default;
  // Starts the speaker with the configuration just written: `restart` when it changed (a
  // running speaker reads it again, its sessions reset); otherwise only if it is not running,
  // so that a second run with nothing to change leaves the sessions and their routes alone.
  virtual Status start(bool restart) = 0;
  virtual Outcome<std::vector<BgpSession>> sessions() = 0;
};

// FRR through systemd (frr.service) and vtysh; `vty_socket`: the daemons' socket directory
// when they were started with another than FRR's own (tests run them in namespaces).
// `start_timeout_ms` bounds systemctl's answer: the caller's own bound on the whole bring-up
// (routing.session_wait_s), for a slow machine starts FRR's daemons slowly.
class NativeBgp : public Bgp {
 public:
  explicit NativeBgp(std::string vty_socket = "", int start_timeout_ms = 30000)
      : vty_socket_(std::move(vty_socket)), start_timeout_ms_(start_timeout_ms) {}
  Status start(bool restart) override;
  Outcome<std::vector<BgpSession>> sessions() override;

 private:
  std::string vty_socket_;
  int start_timeout_ms_;
};

}  // namespace railyard
