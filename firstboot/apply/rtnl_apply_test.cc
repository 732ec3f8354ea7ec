// The rtnetlink and sysctl appliers (link.cc, vlan.cc, address.cc, routing.cc, sysctl.cc)
// and DryRunRtnl, against FakeRtnl/FakeHost: what they change, what they refuse to touch,
// and that a second run over the same kernel changes nothing.
#include <doctest/doctest.h>

#include <netlink/errno.h>

#include <optional>
#include <string>
#include <vector>

#include "apply.h"
#include "dry_run_rtnl.h"
#include "rtnl_native.h"
#include "support/change_listing.h"
#include "support/fake_rtnl.h"

using namespace railyard;
using railyard::test::listing;
using railyard::test::FakeKernel;

namespace {

// A rail at MTU 9000 with the planner's sysctls; `table` makes it a shared-subnet rail.
RailPlan rail(int index, const std::string& ifname, std::optional<int> vlan = std::nullopt,
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

Plan plan_of(std::vector<RailPlan> rails) {
  Plan p;
  p.management = "eno1";
  p.rails = std::move(rails);
  return p;
}

// The one change named `object`; a default Change with object "missing: ..." otherwise.
Change find(const std::vector<Change>& changes, const std::string& object) {
  for (const auto& c : changes)
    if (c.object == object) return c;
  return Change{"missing: " + object, Outcome::failed, "", "", listing(changes)};
}

// "" when every change is unchanged, else the listing.
std::string not_unchanged(const std::vector<Change>& changes) {
  for (const auto& c : changes)
    if (c.outcome != Outcome::unchanged) return listing(changes);
  return "";
}

std::vector<Change> run(Applier a, const Plan& plan, Kernel& k) {
  std::vector<Change> out;
  a(plan, k, out);
  return out;
}

// The rail appliers in apply_plan's order.
std::vector<Change> run_all(const Plan& plan, Kernel& k) {
  std::vector<Change> out;
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing, apply_sysctls}) a(plan, k, out);
  return out;
}

// /proc/sys files of `netdev` at a fresh device's defaults.
void add_conf(railyard::test::FakeHost& host, const std::string& netdev) {
  std::string conf = "/proc/sys/net/ipv4/conf/" + netdev + "/";
  host.files[conf + "arp_ignore"] = "0";
  host.files[conf + "arp_announce"] = "0";
  host.files[conf + "rp_filter"] = "0";
}

}  // namespace

TEST_CASE("links: MTU then up on the physical interface; a second run changes nothing") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  Plan plan = plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")});

  auto first = run(apply_links, plan, f.kernel);
  Change mtu = find(first, "rail 0 (ens1f0np0): MTU");
  CHECK(mtu.outcome == Outcome::changed);
  CHECK(mtu.before == "1500");
  CHECK(mtu.after == "9000");
  Change up = find(first, "rail 0 (ens1f0np0): up");
  CHECK(up.outcome == Outcome::changed);
  CHECK(up.before == "down");
  CHECK(find(first, "rail 1 (ens2f0np0): MTU").outcome == Outcome::unchanged);
  CHECK(find(first, "rail 1 (ens2f0np0): up").outcome == Outcome::unchanged);
  CHECK(f.rtnl.writes == std::vector<std::string>{"set_mtu ens1f0np0 9000", "set_link_up ens1f0np0"});
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 9000);
  CHECK(f.rtnl.links["ens1f0np0"].up);

  f.rtnl.writes.clear();
  CHECK(not_unchanged(run(apply_links, plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("links: a missing rail interface fails; a refused MTU carries the kernel's reason") {
  FakeKernel f;
  f.rtnl.add_link("ens2f0np0", 1500, true);
  f.rtnl.fail["set_mtu ens2f0np0"] = EINVAL;
  auto out = run(apply_links, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")}), f.kernel);
  Change missing = find(out, "rail 0 (ens1f0np0): link");
  CHECK(missing.outcome == Outcome::failed);
  CHECK(missing.detail == "ens1f0np0: read link: No such device");
  Change mtu = find(out, "rail 1 (ens2f0np0): MTU");
  CHECK(mtu.outcome == Outcome::failed);
  CHECK(mtu.detail == "ens2f0np0: set MTU 9000: Invalid argument");
}

TEST_CASE("vlans: created on the parent, at the rail MTU, brought up; a second run changes nothing") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  add_conf(f.host, "ens1f0np0.200");
  Plan plan = plan_of({rail(0, "ens1f0np0", 200)});
  auto out = run_all(plan, f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): MTU").detail == "parent of ens1f0np0.200, set before it");
  Change vlan = find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
  CHECK(vlan.outcome == Outcome::changed);
  CHECK(vlan.before == "none");
  CHECK(vlan.after == "ens1f0np0.200 id 200 on ens1f0np0");
  // Created after its parent reached 9000, the VLAN inherits it: nothing to raise.
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").outcome == Outcome::unchanged);
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 up").outcome == Outcome::changed);
  const LinkInfo& l = f.rtnl.links["ens1f0np0.200"];
  CHECK(l.vlan_id == 200);
  CHECK(l.parent == "ens1f0np0");
  CHECK(l.mtu == 9000);
  CHECK(l.up);

  f.rtnl.writes.clear();
  CHECK(not_unchanged(run_all(plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
  CHECK(run(apply_vlans, plan_of({rail(1, "ens2f0np0")}), f.kernel).empty());  // no VLAN planned
}

TEST_CASE("vlans: an existing VLAN below the rail MTU is raised once its parent allows it") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, true);
  LinkInfo& v = f.rtnl.add_link("ens1f0np0.200", 1500, true);
  v.vlan_id = 200;
  v.parent = "ens1f0np0";
  Plan plan = plan_of({rail(0, "ens1f0np0", 200)});
  auto out = run_all(plan, f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200").outcome == Outcome::unchanged);
  Change mtu = find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU");
  CHECK(mtu.outcome == Outcome::changed);
  CHECK(mtu.before == "1500");
  CHECK(f.rtnl.writes == std::vector<std::string>{"set_mtu ens1f0np0 9000", "set_mtu ens1f0np0.200 9000"});

  // Out of order, the kernel refuses the VLAN more than its parent carries.
  FakeKernel g;
  g.rtnl.add_link("ens1f0np0", 1500, true);
  LinkInfo& w = g.rtnl.add_link("ens1f0np0.200", 1500, true);
  w.vlan_id = 200;
  w.parent = "ens1f0np0";
  out = run(apply_vlans, plan, g.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").detail ==
        "ens1f0np0.200: set MTU 9000: Numerical result out of range");
}

TEST_CASE("vlans: a device of the rail's name with another id, parent or kind is never modified") {
  struct Case {
    const char* name;
    std::optional<int> id;
    const char* parent;
    const char* detail;
  };
  const Case cases[] = {
      {"other id", 300, "ens1f0np0", "ens1f0np0.200 exists as ens1f0np0.200 id 300 on ens1f0np0; not modified"},
      {"other parent", 200, "ens2f0np0", "ens1f0np0.200 exists as ens1f0np0.200 id 200 on ens2f0np0; not modified"},
      {"not a VLAN", std::nullopt, "", "ens1f0np0.200 exists as ens1f0np0.200 (not a VLAN); not modified"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    FakeKernel f;
    f.rtnl.add_link("ens1f0np0", 9000, true);
    f.rtnl.add_link("ens2f0np0", 9000, true);
    LinkInfo& v = f.rtnl.add_link("ens1f0np0.200", 1500, false);
    v.vlan_id = c.id;
    v.parent = c.parent;
    auto out = run(apply_vlans, plan_of({rail(0, "ens1f0np0", 200)}), f.kernel);
    REQUIRE(out.size() == 1);
    CHECK(out[0].object == "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
    CHECK(out[0].outcome == Outcome::failed);
    CHECK(out[0].after == "ens1f0np0.200 id 200 on ens1f0np0");
    CHECK(out[0].detail == c.detail);
    CHECK(f.rtnl.writes.empty());
    CHECK(f.rtnl.links["ens1f0np0.200"].mtu == 1500);
  }
}

TEST_CASE("vlans: a kernel without 802.1Q answers unsupported with its reason; the rail's dependents fail") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.fail["add_vlan"] = EOPNOTSUPP;
  add_conf(f.host, "ens1f0np0");
  auto out = run_all(plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24")}), f.kernel);
  Change vlan = find(out, "rail 0 (ens1f0np0): VLAN ens1f0np0.200");
  CHECK(vlan.outcome == Outcome::unsupported);
  CHECK(vlan.detail == "ens1f0np0.200: add VLAN 200 on ens1f0np0: Operation not supported");
  CHECK(find(out, "rail 0 (ens1f0np0): ens1f0np0.200 MTU").object.rfind("missing", 0) == 0);
  Change address = find(out, "rail 0 (ens1f0np0): address on ens1f0np0.200");
  CHECK(address.outcome == Outcome::failed);
  CHECK(address.detail == "ens1f0np0.200: read addresses: No such device");
  Change sysctl = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_ignore");
  CHECK(sysctl.outcome == Outcome::failed);
  // The parent still got its MTU and came up.
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 9000);
  CHECK(f.rtnl.links["ens1f0np0"].up);
}

TEST_CASE("addresses: added when missing, left when present, a neighbour in the subnet named") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.add_link("ens3f0np0", 9000, true);
  f.rtnl.addrs["ens2f0np0"] = {"198.18.1.99/24", "198.19.0.1/16"};
  Plan plan = plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24"),
                       rail(1, "ens2f0np0", std::nullopt, "198.18.1.11/24"), rail(2, "ens3f0np0")});
  auto out = run(apply_addresses, plan, f.kernel);
  CHECK(out.size() == 2);  // rail 2 has no address planned: nothing to do
  Change a0 = find(out, "rail 0 (ens1f0np0): address on ens1f0np0");
  CHECK(a0.outcome == Outcome::changed);
  CHECK(a0.before == "none");
  CHECK(a0.after == "198.18.0.11/24");
  CHECK(a0.detail == "");
  Change a1 = find(out, "rail 1 (ens2f0np0): address on ens2f0np0");
  CHECK(a1.outcome == Outcome::changed);
  CHECK(a1.before == "198.18.1.99/24, 198.19.0.1/16");
  CHECK(a1.detail == "ens2f0np0 also has 198.18.1.99/24 in 198.18.1.0/24; left as is");
  CHECK(f.rtnl.addrs["ens2f0np0"].size() == 3);

  f.rtnl.writes.clear();
  auto again = run(apply_addresses, plan, f.kernel);
  CHECK(not_unchanged(again) == "");
  CHECK(find(again, "rail 1 (ens2f0np0): address on ens2f0np0").detail ==
        "ens2f0np0 also has 198.18.1.99/24 in 198.18.1.0/24; left as is");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: shared subnet gets a table per rail with the subnet route and a source rule") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  f.rtnl.addrs["ens2f0np0"] = {"198.18.0.12/24"};
  f.rtnl.route_entries = {{"198.18.0.0/24", "ens1f0np0", "198.18.0.11", 254},
                          {"198.18.0.0/24", "ens2f0np0", "198.18.0.12", 254}};
  Plan plan = plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100),
                       rail(1, "ens2f0np0", std::nullopt, "198.18.0.12/24", 101)});
  auto out = run(apply_routing, plan, f.kernel);
  Change r0 = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(r0.outcome == Outcome::changed);
  CHECK(r0.after == "198.18.0.0/24 dev ens1f0np0 src 198.18.0.11 table 100");
  Change rule1 = find(out, "rail 1 (ens2f0np0): rule from 198.18.0.12/32");
  CHECK(rule1.outcome == Outcome::changed);
  CHECK(rule1.after == "from 198.18.0.12/32 lookup 101 priority 1001");
  CHECK(find(out, "rail 0 (ens1f0np0): default route").outcome == Outcome::unchanged);
  CHECK(f.rtnl.writes == std::vector<std::string>{"add_route 198.18.0.0/24 dev ens1f0np0 table 100",
                                                  "add_rule 198.18.0.11/32 100 1000",
                                                  "add_route 198.18.0.0/24 dev ens2f0np0 table 101",
                                                  "add_rule 198.18.0.12/32 101 1001"});
  f.rtnl.writes.clear();
  CHECK(not_unchanged(run(apply_routing, plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: per-rail subnets add nothing; only the default-route check is reported") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24")}), f.kernel);
  CHECK(listing(out) == "rail 0 (ens1f0np0): default route: unchanged [none → none]\n");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: a default route via a rail's netdev or interface fails and is left in place") {
  FakeKernel f;
  f.rtnl.add_link("eno1", 1500, true);
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0", 9000, true);
  f.rtnl.add_link("ens2f0np0.200", 9000, true).vlan_id = 200;
  f.rtnl.route_entries = {{"default", "eno1", "", 254}, {"default", "ens2f0np0.200", "", 254}};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0", 200)}), f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): default route").outcome == Outcome::unchanged);
  Change d = find(out, "rail 1 (ens2f0np0): default route");
  CHECK(d.outcome == Outcome::failed);
  CHECK(d.before == "default dev ens2f0np0.200");
  CHECK(d.detail == "default route via ens2f0np0.200 on a rail");
  CHECK(f.rtnl.route_entries.size() == 2);

  f.rtnl.route_entries = {{"default", "ens1f0np0", "", 254}};  // on the physical interface
  out = run(apply_routing, plan_of({rail(0, "ens1f0np0", 300)}), f.kernel);
  CHECK(find(out, "rail 0 (ens1f0np0): default route").detail == "default route via ens1f0np0 on a rail");
}

TEST_CASE("routing: another route for the subnet in the rail's table is reported, not replaced") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  f.rtnl.route_entries = {{"198.18.0.0/24", "ens9", "", 100}};
  f.rtnl.rule_entries = {{32000, "198.18.0.11/32", 100}};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100)}), f.kernel);
  Change route = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(route.outcome == Outcome::failed);
  CHECK(route.before == "198.18.0.0/24 dev ens9 table 100");
  CHECK(route.detail == "table 100 already routes 198.18.0.0/24 otherwise; not modified");
  Change rule = find(out, "rail 0 (ens1f0np0): rule from 198.18.0.11/32");
  CHECK(rule.outcome == Outcome::unchanged);
  CHECK(rule.detail == "present at priority 32000");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("routing: a kernel that refuses the route says why") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, false);  // down: the kernel answers ENETDOWN
  f.rtnl.addrs["ens1f0np0"] = {"198.18.0.11/24"};
  auto out = run(apply_routing, plan_of({rail(0, "ens1f0np0", std::nullopt, "198.18.0.11/24", 100)}), f.kernel);
  Change route = find(out, "rail 0 (ens1f0np0): route 198.18.0.0/24 table 100");
  CHECK(route.outcome == Outcome::failed);
  CHECK(route.detail == "ens1f0np0: add route 198.18.0.0/24 table 100: Network is down");
}

TEST_CASE("sysctls: read, compare, write only the difference, with a VLAN's name verbatim") {
  FakeKernel f;
  add_conf(f.host, "ens1f0np0.200");
  f.host.files["/proc/sys/net/ipv4/conf/ens1f0np0.200/arp_announce"] = "2";
  Plan plan = plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100)});
  auto out = run(apply_sysctls, plan, f.kernel);
  CHECK(out.size() == 3);
  Change ignore = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_ignore");
  CHECK(ignore.outcome == Outcome::changed);
  CHECK(ignore.before == "0");
  CHECK(ignore.after == "1");
  CHECK(find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0.200/arp_announce").outcome ==
        Outcome::unchanged);
  CHECK(f.host.writes == std::vector<std::string>{"/proc/sys/net/ipv4/conf/ens1f0np0.200/arp_ignore=1",
                                                  "/proc/sys/net/ipv4/conf/ens1f0np0.200/rp_filter=2"});
  f.host.writes.clear();
  CHECK(not_unchanged(run(apply_sysctls, plan, f.kernel)) == "");
  CHECK(f.host.writes.empty());
}

TEST_CASE("sysctls: a missing netdev's files fail; a refused write carries the reason") {
  FakeKernel f;
  add_conf(f.host, "ens2f0np0");
  f.host.write_errors["/proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore"] = EACCES;
  auto out = run(apply_sysctls, plan_of({rail(0, "ens1f0np0"), rail(1, "ens2f0np0")}), f.kernel);
  Change missing = find(out, "rail 0 (ens1f0np0): sysctl net/ipv4/conf/ens1f0np0/arp_ignore");
  CHECK(missing.outcome == Outcome::failed);
  CHECK(missing.detail == "read /proc/sys/net/ipv4/conf/ens1f0np0/arp_ignore: No such file or directory");
  Change refused = find(out, "rail 1 (ens2f0np0): sysctl net/ipv4/conf/ens2f0np0/arp_ignore");
  CHECK(refused.outcome == Outcome::failed);
  CHECK(refused.detail == "write /proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore = 1: Permission denied");
}

TEST_CASE("every rail applier over a shared-subnet VLAN plan, twice: the second run is all unchanged") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.add_link("ens2f0np0", 1500, false);
  add_conf(f.host, "ens1f0np0.200");
  add_conf(f.host, "ens2f0np0.200");
  Plan plan = plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100),
                       rail(1, "ens2f0np0", 200, "198.18.0.12/24", 101)});
  auto first = run_all(plan, f.kernel);
  for (const auto& c : first) {
    CAPTURE(listing(first));
    CHECK(c.outcome != Outcome::failed);
  }
  CHECK(not_unchanged(run_all(plan, f.kernel)) == "");
}

TEST_CASE("dry run: writes are logged, the kernel is untouched, and later reads agree with the log") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 1500, false);
  f.rtnl.addrs["ens1f0np0"] = {};
  std::vector<std::string> log;
  DryRunRtnl dry(f.rtnl, log);
  Kernel k{dry, f.dcb, f.ethtool, f.host};
  Plan plan = plan_of({rail(0, "ens1f0np0", 200, "198.18.0.11/24", 100)});
  std::vector<Change> out;
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing}) a(plan, k, out);
  CHECK(log == std::vector<std::string>{
                   "would set MTU 9000 on ens1f0np0",
                   "would set ens1f0np0 up",
                   "would add VLAN 200 on ens1f0np0 as ens1f0np0.200",
                   "would set ens1f0np0.200 up",
                   "would add address 198.18.0.11/24 to ens1f0np0.200",
                   "would add route 198.18.0.0/24 dev ens1f0np0.200 src 198.18.0.11 table 100",
                   "would add rule from 198.18.0.11/32 lookup 100 priority 1000",
               });
  CHECK(f.rtnl.writes.empty());
  CHECK(f.rtnl.links.size() == 1);
  CHECK(f.rtnl.links["ens1f0np0"].mtu == 1500);

  // The "created" VLAN reads as the kernel would show it; the rest reads as logged.
  auto v = dry.link("ens1f0np0.200");
  REQUIRE(v.ok());
  CHECK(v.value->vlan_id == 200);
  CHECK(v.value->parent == "ens1f0np0");
  CHECK(v.value->mtu == 9000);
  CHECK(dry.addresses("ens1f0np0.200").value == std::vector<std::string>{"198.18.0.11/24"});
  CHECK(dry.link("ens1f0np9").status.err == ENODEV);

  log.clear();
  out.clear();
  for (Applier a : {apply_links, apply_vlans, apply_addresses, apply_routing}) a(plan, k, out);
  CHECK(not_unchanged(out) == "");
  CHECK(log.empty());
}

TEST_CASE("dry run: a freshly created VLAN reads empty and down") {
  FakeKernel f;
  f.rtnl.add_link("ens1f0np0", 9000, true);
  std::vector<std::string> log;
  DryRunRtnl dry(f.rtnl, log);
  REQUIRE(dry.add_vlan("ens1f0np0", "ens1f0np0.7", 7).ok());
  auto v = dry.link("ens1f0np0.7");
  REQUIRE(v.ok());
  CHECK_FALSE(v.value->up);
  auto a = dry.addresses("ens1f0np0.7");
  REQUIRE(a.ok());
  CHECK(a.value->empty());
}

TEST_CASE("libnl's error codes become the kernel's errno") {
  CHECK(errno_from_nl(-NLE_OPNOTSUPP) == EOPNOTSUPP);
  CHECK(errno_from_nl(NLE_OPNOTSUPP) == EOPNOTSUPP);
  CHECK(errno_from_nl(-NLE_OBJ_NOTFOUND) == ENODEV);
  CHECK(errno_from_nl(-NLE_NODEV) == ENODEV);
  CHECK(errno_from_nl(-NLE_EXIST) == EEXIST);
  CHECK(errno_from_nl(-NLE_PERM) == EPERM);
  CHECK(errno_from_nl(-NLE_INVAL) == EINVAL);
  CHECK(errno_from_nl(-NLE_FAILURE) == EIO);
  CHECK(errno_from_nl(-NLE_MSG_TRUNC) == EIO);
  CHECK(errno_from_nl(0) == 0);
}
