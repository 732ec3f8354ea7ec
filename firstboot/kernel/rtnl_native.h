// Rtnl over a netlink route socket (libnl-route): the real kernel, in the caller's namespace.
#pragma once

#include <string>
#include <vector>

#include "kernel/rtnl.h"

struct nl_sock;

namespace railyard {

class NativeRtnl : public Rtnl {
 public:
  NativeRtnl();  // opens the socket; a failure is reported by every call
  ~NativeRtnl() override;
  NativeRtnl(const NativeRtnl&) = delete;
  NativeRtnl& operator=(const NativeRtnl&) = delete;

  Outcome<LinkInfo> link(const std::string& name) override;
  Status set_link_up(const std::string& name) override;
  Status set_mtu(const std::string& name, int mtu) override;
  Status add_vlan(const std::string& parent, const std::string& name, int id) override;
  Outcome<std::vector<std::string>> addresses(const std::string& name) override;
  Status add_address(const std::string& name, const std::string& cidr) override;
  Outcome<std::vector<RouteInfo>> routes(int table) override;
  Status add_route(const RouteInfo& route) override;
  Outcome<std::vector<RuleInfo>> rules() override;
  Status add_rule(const RuleInfo& rule) override;
  Outcome<RouteLookup> route_get(const std::string& destination, const std::string& source) override;
  Status add_vxlan(const std::string& name, int vni, const std::string& local) override;
  Outcome<std::vector<std::string>> flood_list(const std::string& name) override;
  Status add_flood(const std::string& name, const std::string& vtep) override;

 private:
  nl_sock* sock_ = nullptr;
  Status open_ = success();  // why the socket is not usable, when it is not
};

// libnl's error code (NLE_*, either sign) as the errno the kernel most likely answered.
int errno_from_nl(int nle);

}  // namespace railyard
