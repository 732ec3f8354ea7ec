// The rtnetlink and sysctl appliers (link, vlan, address, routing, sysctl) against
// FakeRtnl/FakeHost: rails as the planner makes them and helpers to run and read changes.
#pragma once

#include <doctest/doctest.h>

#include <netlink/errno.h>
#include <optional>
#include <string>
#include <vector>

#include "apply/apply.h"
#include "kernel/dry_run_rtnl.h"
#include "kernel/rtnl_native.h"
#include "objects/address.h"
#include "objects/link.h"
#include "objects/routing.h"
#include "objects/sysctl.h"
#include "objects/vlan.h"
#include "support/change_listing.h"
#include "support/fake_rtnl.h"

using namespace railyard;
using railyard::test::FakeKernel;
using railyard::test::listing;

namespace railyard::test::rtnl_rig {

// A rail at MTU 9000 with the planner's sysctls; `table` makes it a shared-subnet rail.
inline RailPlan rail(int index, const std::string& ifname, std::optional<int> vlan = std::nullopt,
                     std::optional<std::string> address = std::nullopt, std::optional<int> table = std::nullopt) {
  RailPlan r;
  r.index = index;
  r.ifname = ifname;
  r.vlan = vlan;
  r.netdev = vlan ? ifname + "." + std::to_string(*vlan) : ifname;
  r.mtu = 9000;
  r.address = std::move(address);
  r.table = table;
  std::string conf = "net/ipv4/conf/" + r.netdev + "/";
  r.sysctls = {{conf + "arp_ignore", "1"}, {conf + "arp_announce", "2"}};
  if (table) r.sysctls.push_back({conf + "rp_filter", "2"});
  return r;
}

inline Plan plan_of(std::vector<RailPlan> rails) {
  Plan p;
  p.management = "eno1";
  p.rails = std::move(rails);
  return p;
}

// The one change named `object`; a default Change with object "missing: ..." otherwise.
inline Change find(const std::vector<Change>& changes, const std::string& object) {
  for (const auto& c : changes)
    if (c.object == object) return c;
  return Change{"missing: " + object, ChangeOutcome::failed, "", "", listing(changes)};
}

// "" when every change is unchanged, else the listing.
inline std::string not_unchanged(const std::vector<Change>& changes) {
  for (const auto& c : changes)
    if (c.outcome != ChangeOutcome::unchanged) return listing(changes);
  return "";
}

inline std::vector<Change> run(Applier a, const Plan& plan, Kernel& k) {
  std::vector<Change> out;
  a(plan, k, out);
  return out;
}

// The rail appliers in apply_plan's order.
inline std::vector<Change> run_all(const Plan& plan, Kernel& k) {
  std::vector<Change> out;
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing, apply_sysctls}) a(plan, k, out);
  return out;
}

// /proc/sys files of `netdev` at a fresh device's defaults.
inline void add_conf(railyard::test::FakeHost& host, const std::string& netdev) {
  std::string conf = "/proc/sys/net/ipv4/conf/" + netdev + "/";
  host.files[conf + "arp_ignore"] = "0";
  host.files[conf + "arp_announce"] = "0";
  host.files[conf + "rp_filter"] = "0";
}

}  // namespace railyard::test::rtnl_rig

using namespace railyard::test::rtnl_rig;
