// Rtnl for --dry-run: reads go to the real kernel, writes are logged ("would set MTU 9000 on
// ens1f0np0") and remembered, so that later reads in the same run see what would be there.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/rtnl.h"

namespace railyard {

class DryRunRtnl : public Rtnl {
 public:
  DryRunRtnl(Rtnl& real, std::vector<std::string>& log) : real_(real), log_(log) {}

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
  // A lookup changes nothing: the real kernel answers (without the routes a dry run only logs).
  Outcome<RouteLookup> route_get(const std::string& destination, const std::string& source) override {
    return real_.route_get(destination, source);
  }
  Status add_vxlan(const std::string& name, int vni, const std::string& local) override;
  Outcome<std::vector<std::string>> flood_list(const std::string& name) override;
  Status add_flood(const std::string& name, const std::string& vtep) override;

 private:
  // What would have been set on an existing link, laid over what the kernel answers.
  struct LinkOverlay {
    std::optional<int> mtu;
    bool up = false;
  };

  Rtnl& real_;
  std::vector<std::string>& log_;
  std::map<std::string, LinkInfo> created_;  // VLAN and VXLAN devices "created": empty and down
  std::map<std::string, LinkOverlay> overlay_;
  std::map<std::string, std::vector<std::string>> addresses_;
  std::vector<RouteInfo> routes_;
  std::vector<RuleInfo> rules_;
  std::map<std::string, std::vector<std::string>> flood_;
};

}  // namespace railyard
