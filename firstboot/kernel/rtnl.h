// Links, VLANs, addresses, routes and rules over rtnetlink (libnl-route).
#pragma once

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

struct LinkInfo {
  std::string name;
  int ifindex = 0;
  int mtu = 0;
  bool up = false;             // administratively up (IFF_UP)
  std::optional<int> vlan_id;  // set for VLAN devices
  std::string parent;          // a VLAN's lower device
  std::optional<int> vni;      // set for VXLAN devices
  std::string vxlan_local;     // a VXLAN device's source address
};

struct RouteInfo {
  std::string destination;  // "198.18.0.0/24", or "default"
  std::string dev;
  std::string source;  // preferred source address, "" for none
  int table = 254;     // RT_TABLE_MAIN
  // The next hop: "" for a directly connected route, an IPv4 gateway, or an IPv6 link-local
  // address (RFC 5549: an IPv4 route via the peer's link-local address, as BGP unnumbered
  // installs them).
  std::string via;
};

// Where the kernel would send a packet (RTM_GETROUTE, as `ip route get DST from SRC`).
struct RouteLookup {
  std::string dev;
  std::string via;  // "" when the destination is on the link
  int table = 0;
};

struct RuleInfo {
  int priority = 0;
  std::string from;  // "198.18.0.11/32"
  int table = 0;
};

class Rtnl {
 public:
  virtual ~Rtnl() = default;
  virtual Outcome<LinkInfo> link(const std::string& name) = 0;
  virtual Status set_link_up(const std::string& name) = 0;
  virtual Status set_mtu(const std::string& name, int mtu) = 0;
  virtual Status add_vlan(const std::string& parent, const std::string& name, int id) = 0;
  virtual Outcome<std::vector<std::string>> addresses(const std::string& name) = 0;  // IPv4 "a.b.c.d/nn"
  virtual Status add_address(const std::string& name, const std::string& cidr) = 0;
  virtual Outcome<std::vector<RouteInfo>> routes(int table) = 0;  // IPv4 unicast routes of a table
  virtual Status add_route(const RouteInfo& route) = 0;
  virtual Outcome<std::vector<RuleInfo>> rules() = 0;  // IPv4 rules
  virtual Status add_rule(const RuleInfo& rule) = 0;
  // The route the kernel picks for `destination` from the local address `source` (rules
  // included); "" as source: from any. Only routed rails need it.
  virtual Outcome<RouteLookup> route_get(const std::string& destination, const std::string& source) = 0;
  // The tenant network's VXLAN device (UDP 4789, learning on) and its flood list: the remote
  // VTEPs of its all-zero forwarding entries (`bridge fdb append 00:00:00:00:00:00 dst VTEP`).
  // Only a tenant network needs them.
  virtual Status add_vxlan(const std::string& name, int vni, const std::string& local) = 0;
  virtual Outcome<std::vector<std::string>> flood_list(const std::string& name) = 0;
  virtual Status add_flood(const std::string& name, const std::string& vtep) = 0;
};

}  // namespace railyard
