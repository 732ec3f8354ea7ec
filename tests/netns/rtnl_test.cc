// NativeRtnl and the rail appliers on the build host's kernel, inside the namespace that
// tests/netns/run.sh makes (veth ry-a/ry-b, nothing else attached). Addresses are from
// 198.18.0.0/15. Cases run in file order and build on each other's state.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "apply/apply.h"
#include "objects/address.h"
#include "objects/link.h"
#include "objects/routing.h"
#include "objects/sysctl.h"
#include "objects/vlan.h"
#include "kernel/dry_run_rtnl.h"
#include "kernel/host_native.h"
#include "kernel/rtnl_native.h"
#include "support/change_listing.h"
#include "support/fake_rtnl.h"

using namespace railyard;
using railyard::test::listing;

namespace {

// The veth ends run.sh made; fails (never skips silently) when run outside it.
std::string veth(const char* var) {
  const char* v = std::getenv(var);
  if (!v || !*v) FAIL(var << " is not set: run through tests/netns/run.sh (root, own namespace)");
  return v;
}

struct NetnsKernel {
  NativeRtnl rtnl;
  test::UnusedDcb dcb;
  test::UnusedEthtool ethtool;
  NativeHost host;
  Kernel kernel{rtnl, dcb, ethtool, host};
};

// A shared-subnet rail on `ifname`: MTU 9000, table 100 + index, the planner's sysctls.
RailPlan rail(int index, const std::string& ifname, const std::string& address) {
  RailPlan r;
  r.index = index;
  r.ifname = r.netdev = ifname;
  r.mtu = 9000;
  r.address = address;
  r.table = 100 + index;
  std::string conf = "net/ipv4/conf/" + ifname + "/";
  r.sysctls = {{conf + "arp_ignore", "1"}, {conf + "arp_announce", "2"}, {conf + "rp_filter", "2"}};
  return r;
}

Plan plan_of(std::vector<RailPlan> rails) {
  Plan p;
  p.rails = std::move(rails);
  return p;
}

std::vector<Change> apply_rails(const Plan& plan, Kernel& k) {
  std::vector<Change> out;
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing, apply_sysctls}) a(plan, k, out);
  return out;
}

int count(const std::vector<Change>& changes, ChangeOutcome o) {
  return static_cast<int>(
      std::count_if(changes.begin(), changes.end(), [&](const Change& c) { return c.outcome == o; }));
}

bool has_route(const std::vector<RouteInfo>& routes, const RouteInfo& want) {
  return std::any_of(routes.begin(), routes.end(), [&](const RouteInfo& r) {
    return r.destination == want.destination && r.dev == want.dev && r.source == want.source && r.table == want.table;
  });
}

bool has_rule(const std::vector<RuleInfo>& rules, const RuleInfo& want) {
  return std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& r) {
    return r.priority == want.priority && r.from == want.from && r.table == want.table;
  });
}

}  // namespace

TEST_CASE("NativeRtnl reads the veth and answers a missing device with ENODEV") {
  std::string a = veth("RAILYARD_NETNS_VETH_A");
  NativeRtnl rtnl;
  auto l = rtnl.link(a);
  REQUIRE_MESSAGE(l.ok(), l.error());
  CHECK(l->name == a);
  CHECK(l->ifindex > 0);
  CHECK(l->mtu > 0);
  CHECK_FALSE(l->vlan_id);
  CHECK(l->parent == "");  // a veth's IFLA_LINK is its peer, not a parent

  auto missing = rtnl.link("ry-nope");
  CHECK(missing.code() == ENODEV);
  CHECK(missing.error() == "ry-nope: read link: No such device");
  CHECK(rtnl.set_mtu("ry-nope", 9000).error() == "ry-nope: set MTU 9000: No such device");
  auto addresses = rtnl.addresses(a);
  REQUIRE(addresses.ok());
}

TEST_CASE("the rail appliers on a veth: up, MTU 9000, address, table 100 route and rule, sysctls; twice") {
  std::string a = veth("RAILYARD_NETNS_VETH_A");
  std::string b = veth("RAILYARD_NETNS_VETH_B");
  NetnsKernel k;
  Plan plan = plan_of({rail(0, a, "198.18.0.11/24"), rail(1, b, "198.18.0.12/24")});

  auto first = apply_rails(plan, k.kernel);
  CAPTURE(listing(first));
  CHECK(count(first, ChangeOutcome::failed) == 0);
  CHECK(count(first, ChangeOutcome::unsupported) == 0);
  CHECK(count(first, ChangeOutcome::changed) > 0);

  // Read back through NativeRtnl and NativeHost, not through what the appliers said.
  auto l = k.rtnl.link(a);
  REQUIRE(l.ok());
  CHECK(l->up);
  CHECK(l->mtu == 9000);
  auto addresses = k.rtnl.addresses(a);
  REQUIRE(addresses.ok());
  CHECK(*addresses == std::vector<std::string>{"198.18.0.11/24"});
  auto t100 = k.rtnl.routes(100);
  REQUIRE_MESSAGE(t100.ok(), t100.error());
  CHECK(has_route(*t100, {"198.18.0.0/24", a, "198.18.0.11", 100, ""}));
  auto t101 = k.rtnl.routes(101);
  REQUIRE(t101.ok());
  CHECK(has_route(*t101, {"198.18.0.0/24", b, "198.18.0.12", 101, ""}));
  auto main = k.rtnl.routes(254);  // the connected route the address brought
  REQUIRE(main.ok());
  CHECK(has_route(*main, {"198.18.0.0/24", a, "198.18.0.11", 254, ""}));
  auto rules = k.rtnl.rules();
  REQUIRE_MESSAGE(rules.ok(), rules.error());
  CHECK(has_rule(*rules, {1000, "198.18.0.11/32", 100}));
  CHECK(has_rule(*rules, {1001, "198.18.0.12/32", 101}));
  CHECK(*k.host.files.read_file("/proc/sys/net/ipv4/conf/" + a + "/arp_ignore") == "1");
  CHECK(*k.host.files.read_file("/proc/sys/net/ipv4/conf/" + a + "/arp_announce") == "2");
  CHECK(*k.host.files.read_file("/proc/sys/net/ipv4/conf/" + a + "/rp_filter") == "2");

  auto second = apply_rails(plan, k.kernel);
  CAPTURE(listing(second));
  CHECK(count(second, ChangeOutcome::unchanged) == static_cast<int>(second.size()));
  CHECK(second.size() == first.size());
}

TEST_CASE("NativeRtnl passes the kernel's refusals on as errno with the operation named") {
  std::string a = veth("RAILYARD_NETNS_VETH_A");
  NativeRtnl rtnl;
  Status again = rtnl.add_address(a, "198.18.0.11/24");
  CHECK(again.code() == EEXIST);
  CHECK(again.error() == a + ": add address 198.18.0.11/24: File exists");
  Status big = rtnl.set_mtu(a, 70000);  // above a veth's maximum
  CHECK(big.code() == EINVAL);
  CHECK(big.error() == a + ": set MTU 70000: Invalid argument");
  Status route = rtnl.add_route({"198.18.0.0/24", a, "198.18.0.11", 100, ""});
  CHECK(route.code() == EEXIST);
  Status nodev = rtnl.add_route({"198.19.0.0/24", "ry-nope", "", 100, ""});
  CHECK(nodev.code() == ENODEV);
  CHECK(nodev.error() == "ry-nope: add route 198.19.0.0/24 table 100: No such device");
}

TEST_CASE("a default route via a rail is reported failed and left in place") {
  std::string b = veth("RAILYARD_NETNS_VETH_B");
  NetnsKernel k;
  Status added = k.rtnl.add_route({"default", b, "", 254, ""});
  REQUIRE_MESSAGE(added.ok(), added.error());
  std::vector<Change> out;
  apply_routing(plan_of({rail(1, b, "198.18.0.12/24")}), k.kernel, out);
  CAPTURE(listing(out));
  bool reported = false;
  for (const auto& c : out)
    if (c.object == "rail 1 (" + b + "): default route") {
      reported = true;
      CHECK(c.outcome == ChangeOutcome::failed);
      CHECK(c.detail == "default route via " + b + " on a rail");
    }
  CHECK(reported);
  auto main = k.rtnl.routes(254);
  REQUIRE(main.ok());
  CHECK(has_route(*main, {"default", b, "", 254, ""}));
}

TEST_CASE("a VLAN on the veth: the kernel's answer, reported, not a crash") {
  std::string a = veth("RAILYARD_NETNS_VETH_A");
  NetnsKernel k;
  RailPlan r = rail(0, a, "198.18.0.11/24");
  r.vlan = 200;
  r.netdev = a + ".200";
  std::vector<Change> out;
  apply_vlans(plan_of({r}), k.kernel, out);
  CAPTURE(listing(out));
  REQUIRE(!out.empty());
  CHECK(out[0].object == "rail 0 (" + a + "): VLAN " + a + ".200");
  auto l = k.rtnl.link(a + ".200");
  if (out[0].outcome == ChangeOutcome::changed) {
    // A kernel with 802.1Q (CI elsewhere, QEMU): the device is what was asked for.
    MESSAGE("this kernel has 802.1Q: the VLAN was created");
    REQUIRE(l.ok());
    CHECK(l->vlan_id == 200);
    CHECK(l->parent == a);
  } else {
    // The build host's kernel: no 802.1Q, EOPNOTSUPP from RTM_NEWLINK.
    CHECK(out[0].outcome == ChangeOutcome::unsupported);
    CHECK(out[0].detail == a + ".200: add VLAN 200 on " + a + ": Operation not supported");
    CHECK(out.size() == 1);
    CHECK(l.code() == ENODEV);
  }
}

TEST_CASE("a dry run over the real kernel logs the writes and makes none") {
  std::string a = veth("RAILYARD_NETNS_VETH_A");
  NativeRtnl real;
  std::vector<std::string> log;
  DryRunRtnl dry(real, log);
  test::UnusedDcb dcb;
  test::UnusedEthtool ethtool;
  NativeHost host;
  Kernel k{dry, dcb, ethtool, host};
  RailPlan r = rail(0, a, "198.18.2.11/24");
  r.mtu = 4200;
  r.table = 102;
  r.sysctls.clear();
  auto out = apply_rails(plan_of({r}), k);
  CAPTURE(listing(out));
  CHECK(log == std::vector<std::string>{"would set MTU 4200 on " + a, "would add address 198.18.2.11/24 to " + a,
                                        "would add route 198.18.2.0/24 dev " + a + " src 198.18.2.11 table 102",
                                        "would add rule from 198.18.2.11/32 lookup 102 priority 1000"});
  CHECK(real.link(a)->mtu == 9000);
  CHECK(*real.addresses(a) == std::vector<std::string>{"198.18.0.11/24"});
  CHECK(real.routes(102)->empty());
}

TEST_CASE("an IPv4 route via an IPv6 link-local next hop in a rail's table, and the lookup from the rail's address") {
  // What a routed rail's table holds (objects/routing.cc apply_rail_tables): the fabric via the
  // leaf's link-local address, reached by the rule from the rail's /32.
  NativeRtnl rtnl;
  std::string b = veth("RAILYARD_NETNS_VETH_B");
  REQUIRE(rtnl.set_link_up(b).ok());
  auto added = rtnl.add_address(b, "198.19.7.11/32");
  CHECK((added.ok() || added.code() == EEXIST));
  RouteInfo via{"198.19.0.0/16", b, "", 150, "fe80::1"};
  Status s = rtnl.add_route(via);
  REQUIRE_MESSAGE(s.ok(), s.error());
  auto table = rtnl.routes(150);
  REQUIRE(table.ok());
  REQUIRE(table->size() == 1);
  CHECK((*table)[0].destination == "198.19.0.0/16");
  CHECK((*table)[0].dev == b);
  CHECK((*table)[0].via == "fe80::1");
  CHECK(rtnl.add_rule({1150, "198.19.7.11/32", 150}).ok());

  auto from_rail = rtnl.route_get("198.19.3.4", "198.19.7.11");
  REQUIRE_MESSAGE(from_rail.ok(), from_rail.error());
  CHECK(from_rail->dev == b);
  CHECK(from_rail->table == 150);
  CHECK(from_rail->via == "fe80::1");
  // From anywhere else the rule does not apply: the main table decides (its default route,
  // an earlier case's), or nothing routes it.
  auto elsewhere = rtnl.route_get("198.19.3.4", "");
  if (elsewhere.ok()) CHECK(elsewhere->table == 254);
  else CHECK(elsewhere.error().find("route 198.19.3.4: lookup") == 0);
  auto bad = rtnl.route_get("not-an-address", "");
  CHECK_FALSE(bad.ok());
  CHECK(bad.code() == EINVAL);
}
