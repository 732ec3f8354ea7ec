// Test helpers: an in-memory rtnetlink (FakeRtnl) that answers like the kernel does, an
// in-memory Host (FakeHost) whose files behave like /proc/sys, DCB and ethtool stand-ins that
// fail the test when called, and FakeKernel tying them into the Kernel the appliers take.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "support/fake_host.h"

namespace railyard::test {

// Links, addresses, routes and rules in memory, with the kernel's checks that catch ordering
// mistakes: a VLAN's MTU may not exceed its parent's, a route needs its device up and its
// source address present. Status messages read like NativeRtnl's.
class FakeRtnl : public Rtnl {
 public:
  std::map<std::string, LinkInfo> links;
  std::map<std::string, std::vector<std::string>> addrs;  // netdev → "a.b.c.d/nn"
  std::vector<RouteInfo> route_entries;
  std::vector<RuleInfo> rule_entries;
  // Injected errors: "add_vlan" fails every VLAN creation, "set_mtu ens1f0np0" one device's.
  std::map<std::string, int> fail;
  std::vector<std::string> writes;  // every successful write, "set_mtu ens1f0np0 9000"

  LinkInfo& add_link(const std::string& name, int mtu = 1500, bool up = false) {
    LinkInfo& l = links[name];
    l.name = name;
    l.ifindex = next_ifindex_++;
    l.mtu = mtu;
    l.up = up;
    return l;
  }

  Outcome<LinkInfo> link(const std::string& name) override {
    if (Status s = check("link", name, name + ": read link"); !s.ok()) return Outcome<LinkInfo>::fail(s);
    auto it = links.find(name);
    if (it == links.end()) return Outcome<LinkInfo>::from_errno(ENODEV, name + ": read link");
    return Outcome<LinkInfo>(it->second);
  }

  Status set_link_up(const std::string& name) override {
    std::string what = name + ": set up";
    if (Status s = check("set_link_up", name, what); !s.ok()) return s;
    auto it = links.find(name);
    if (it == links.end()) return Status::from_errno(ENODEV, what);
    it->second.up = true;
    writes.push_back("set_link_up " + name);
    return success();
  }

  Status set_mtu(const std::string& name, int mtu) override {
    std::string what = name + ": set MTU " + std::to_string(mtu);
    if (Status s = check("set_mtu", name, what); !s.ok()) return s;
    auto it = links.find(name);
    if (it == links.end()) return Status::from_errno(ENODEV, what);
    if (it->second.vlan_id) {
      auto parent = links.find(it->second.parent);
      if (parent != links.end() && mtu > parent->second.mtu) return Status::from_errno(ERANGE, what);
    }
    it->second.mtu = mtu;
    for (auto& [n, l] : links)  // the kernel lowers VLANs above a parent whose MTU shrinks
      if (l.vlan_id && l.parent == name && l.mtu > mtu) l.mtu = mtu;
    writes.push_back("set_mtu " + name + " " + std::to_string(mtu));
    return success();
  }

  Status add_vlan(const std::string& parent, const std::string& name, int id) override {
    std::string what = name + ": add VLAN " + std::to_string(id) + " on " + parent;
    if (Status s = check("add_vlan", name, what); !s.ok()) return s;
    auto p = links.find(parent);
    if (p == links.end()) return Status::from_errno(ENODEV, what);
    if (links.count(name)) return Status::from_errno(EEXIST, what);
    int mtu = p->second.mtu;
    LinkInfo& l = add_link(name, mtu, false);
    l.vlan_id = id;
    l.parent = parent;
    writes.push_back("add_vlan " + parent + " " + name + " " + std::to_string(id));
    return success();
  }

  Outcome<std::vector<std::string>> addresses(const std::string& name) override {
    using Result = Outcome<std::vector<std::string>>;
    if (Status s = check("addresses", name, name + ": read addresses"); !s.ok()) return Result::fail(s);
    if (!links.count(name)) return Result::from_errno(ENODEV, name + ": read addresses");
    return Result(addrs[name]);
  }

  Status add_address(const std::string& name, const std::string& cidr) override {
    std::string what = name + ": add address " + cidr;
    if (Status s = check("add_address", name, what); !s.ok()) return s;
    if (!links.count(name)) return Status::from_errno(ENODEV, what);
    auto& list = addrs[name];
    if (std::find(list.begin(), list.end(), cidr) != list.end()) return Status::from_errno(EEXIST, what);
    list.push_back(cidr);
    writes.push_back("add_address " + name + " " + cidr);
    return success();
  }

  Outcome<std::vector<RouteInfo>> routes(int table) override {
    using Result = Outcome<std::vector<RouteInfo>>;
    std::string key = std::to_string(table);
    if (Status s = check("routes", key, "table " + key + ": read routes"); !s.ok()) return Result::fail(s);
    std::vector<RouteInfo> out;
    for (const auto& r : route_entries)
      if (r.table == table) out.push_back(r);
    return Result(out);
  }

  Status add_route(const RouteInfo& route) override {
    std::string what = route.dev + ": add route " + route.destination + " table " + std::to_string(route.table);
    if (Status s = check("add_route", route.dev, what); !s.ok()) return s;
    auto dev = links.find(route.dev);
    if (dev == links.end()) return Status::from_errno(ENODEV, what);
    if (!dev->second.up) return Status::from_errno(ENETDOWN, what);
    if (!route.source.empty() && !is_local(route.source)) return Status::from_errno(EINVAL, what);
    for (const auto& r : route_entries)
      if (r.table == route.table && r.destination == route.destination) return Status::from_errno(EEXIST, what);
    route_entries.push_back(route);
    writes.push_back("add_route " + route.destination + " dev " + route.dev + " table " + std::to_string(route.table));
    return success();
  }

  Outcome<std::vector<RuleInfo>> rules() override {
    if (Status s = check("rules", "", "read rules"); !s.ok()) return Outcome<std::vector<RuleInfo>>::fail(s);
    return Outcome<std::vector<RuleInfo>>(rule_entries);
  }

  Status add_rule(const RuleInfo& rule) override {
    std::string what = "add rule from " + rule.from + " lookup " + std::to_string(rule.table) + " priority " +
                       std::to_string(rule.priority);
    if (Status s = check("add_rule", rule.from, what); !s.ok()) return s;
    for (const auto& r : rule_entries)
      if (r.priority == rule.priority && r.from == rule.from && r.table == rule.table)
        return Status::from_errno(EEXIST, what);
    rule_entries.push_back(rule);
    writes.push_back("add_rule " + rule.from + " " + std::to_string(rule.table) + " " + std::to_string(rule.priority));
    return success();
  }

  std::map<std::string, std::vector<std::string>> flood;  // VXLAN device → remote VTEPs

  Status add_vxlan(const std::string& name, int vni, const std::string& local) override {
    std::string what = name + ": add VXLAN " + std::to_string(vni) + " from " + local;
    if (Status s = check("add_vxlan", name, what); !s.ok()) return s;
    if (links.count(name)) return Status::from_errno(EEXIST, what);
    LinkInfo& l = add_link(name, 1450, false);
    l.vni = vni;
    l.vxlan_local = local;
    writes.push_back("add_vxlan " + name + " " + std::to_string(vni) + " " + local);
    return success();
  }

  Outcome<std::vector<std::string>> flood_list(const std::string& name) override {
    using Result = Outcome<std::vector<std::string>>;
    if (Status s = check("flood_list", name, name + ": read flood list"); !s.ok()) return Result::fail(s);
    if (!links.count(name)) return Result::from_errno(ENODEV, name + ": read flood list");
    return Result(flood[name]);
  }

  Status add_flood(const std::string& name, const std::string& vtep) override {
    std::string what = name + ": flood to " + vtep;
    if (Status s = check("add_flood", name, what); !s.ok()) return s;
    if (!links.count(name)) return Status::from_errno(ENODEV, what);
    flood[name].push_back(vtep);
    writes.push_back("add_flood " + name + " " + vtep);
    return success();
  }

  // The kernel's choice, simplified: the rules from `source` by priority, then the main
  // table; in a table the longest prefix containing the destination.
  Outcome<RouteLookup> route_get(const std::string& destination, const std::string& source) override {
    using Result = Outcome<RouteLookup>;
    std::string what = "route " + destination + " from " + source + ": lookup";
    if (Status s = check("route_get", destination, what); !s.ok()) return Result::fail(s);
    std::vector<RuleInfo> rules = rule_entries;
    std::stable_sort(rules.begin(), rules.end(),
                     [](const RuleInfo& a, const RuleInfo& b) { return a.priority < b.priority; });
    std::vector<int> tables;
    for (const auto& r : rules)
      if (!source.empty() && r.from == source + "/32") tables.push_back(r.table);
    tables.push_back(254);
    for (int t : tables) {
      const RouteInfo* best = nullptr;
      int best_len = -1;
      for (const auto& r : route_entries) {
        if (r.table != t) continue;
        int len = prefix_contains(r.destination, destination);
        if (len > best_len) best = &r, best_len = len;
      }
      if (best) return Result(RouteLookup{best->dev, best->via, t});
    }
    return Result::from_errno(ENETUNREACH, what);
  }

 private:
  // The prefix length of `prefix` ("198.18.0.0/16", "default") when it holds `ip`, else -1.
  static int prefix_contains(const std::string& prefix, const std::string& ip) {
    auto value = [](const std::string& a) {
      std::uint32_t v = 0;
      unsigned b[4] = {};
      if (std::sscanf(a.c_str(), "%u.%u.%u.%u", &b[0], &b[1], &b[2], &b[3]) != 4) return std::uint32_t{0};
      for (unsigned x : b) v = (v << 8) | (x & 0xff);
      return v;
    };
    if (prefix == "default") return 0;
    auto slash = prefix.find('/');
    int len = slash == std::string::npos ? 32 : std::stoi(prefix.substr(slash + 1));
    std::uint32_t mask = len == 0 ? 0 : ~std::uint32_t{0} << (32 - len);
    return (value(prefix.substr(0, slash)) & mask) == (value(ip) & mask) ? len : -1;
  }

  Status check(const std::string& op, const std::string& subject, const std::string& what) const {
    for (const auto& key : {op + " " + subject, op})
      if (auto it = fail.find(key); it != fail.end()) return Status::from_errno(it->second, what);
    return success();
  }
  bool is_local(const std::string& ip) const {
    for (const auto& [dev, list] : addrs)
      for (const auto& a : list)
        if (a.substr(0, a.find('/')) == ip) return true;
    return false;
  }
  int next_ifindex_ = 2;  // 1 is lo
};

// Files in memory, behaving like /proc/sys and /sys: a write replaces an existing file's
// value and cannot create one (ENOENT), unless `writes_create` says the tree allows it.
// What the tests here do not use answers ENOSYS.
// DCB for tests of appliers that must not use it: a call fails the test.
class UnusedDcb : public Dcb {
 public:
  Outcome<IeeePfc> pfc(const std::string& ifname) override { return Outcome<IeeePfc>::fail(used("read PFC", ifname)); }
  Status set_pfc(const std::string& ifname, const IeeePfc&) override { return used("set PFC", ifname); }
  Outcome<std::vector<DcbApp>> apps(const std::string& ifname) override {
    return Outcome<std::vector<DcbApp>>::fail(used("read app table", ifname));
  }
  Status add_apps(const std::string& ifname, const std::vector<DcbApp>&) override { return used("add apps", ifname); }

 private:
  static Status used(const std::string& op, const std::string& ifname) {
    FAIL_CHECK("UnusedDcb: " << op << " on " << ifname);
    return Status::from_errno(ENOSYS, ifname + ": " + op);
  }
};

// ethtool for tests of appliers that must not use it: a call fails the test.
class UnusedEthtool : public Ethtool {
 public:
  Outcome<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t) override {
    return Outcome<std::uint16_t>::fail(used("read tunable", ifname));
  }
  Status set_tunable_u16(const std::string& ifname, std::uint32_t, std::uint16_t) override {
    return used("set tunable", ifname);
  }
  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) override {
    return Outcome<std::map<std::string, std::uint64_t>>::fail(used("read stats", ifname));
  }

 private:
  static Status used(const std::string& op, const std::string& ifname) {
    FAIL_CHECK("UnusedEthtool: " << op << " on " << ifname);
    return Status::from_errno(ENOSYS, ifname + ": " + op);
  }
};

// The Kernel an applier takes, over FakeRtnl and FakeHost.
struct FakeKernel {
  FakeKernel() = default;
  FakeKernel(const FakeKernel&) = delete;  // `kernel` refers to this object's own members
  FakeKernel& operator=(const FakeKernel&) = delete;
  FakeRtnl rtnl;
  UnusedDcb dcb;
  UnusedEthtool ethtool;
  FakeHost host;
  Kernel kernel{rtnl, dcb, ethtool, host};
};

}  // namespace railyard::test
