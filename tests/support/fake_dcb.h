// Test helpers: in-memory DCB (FakeDcb) and ethtool (FakeEthtool) with injectable errnos,
// rtnetlink and Host stand-ins that fail the test when called (UnusedRtnl, UnusedHost), and
// DcbKernel tying them into the Kernel the DCB and storm appliers take.
#pragma once

#include <doctest/doctest.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.h"

namespace railyard::test {

// Interfaces with DCB are the keys of `pfcs`; any other name answers ENODEV, like the kernel.
// Status messages read like NativeDcb's. add_apps replaces entries of the same selector and
// protocol, as NativeDcb::add_apps promises.
class FakeDcb : public Dcb {
 public:
  std::map<std::string, IeeePfc> pfcs;
  std::map<std::string, std::vector<DcbApp>> tables;  // app tables; a missing one is empty
  // Injected errnos by operation ("pfc", "set_pfc", "apps", "add_apps"), for every interface
  // or for one ("set_pfc ens1f0np0").
  std::map<std::string, int> fail;
  bool ignore_set_pfc = false;      // like a driver without ieee_setpfc: SET succeeds, nothing changes
  int calls = 0;                    // reads and writes
  std::vector<std::string> writes;  // each successful write, "set_pfc ens1f0np0 pfc_en 0x08 delay 32"

  Outcome<IeeePfc> pfc(const std::string& ifname) override {
    if (Status s = check("pfc", ifname, "RTM_GETDCB IEEE PFC"); !s.ok()) return Outcome<IeeePfc>::fail(s);
    return Outcome<IeeePfc>(pfcs.at(ifname));
  }

  Status set_pfc(const std::string& ifname, const IeeePfc& pfc) override {
    if (Status s = check("set_pfc", ifname, "RTM_SETDCB IEEE PFC"); !s.ok()) return s;
    char buf[64];
    std::snprintf(buf, sizeof buf, " pfc_cap %u pfc_en 0x%02x mbc %u delay %u", pfc.pfc_cap, pfc.pfc_en, pfc.mbc,
                  pfc.delay);
    writes.push_back("set_pfc " + ifname + buf);
    if (!ignore_set_pfc) pfcs[ifname] = pfc;
    return success();
  }

  Outcome<std::vector<DcbApp>> apps(const std::string& ifname) override {
    if (Status s = check("apps", ifname, "RTM_GETDCB IEEE APP"); !s.ok()) return Outcome<std::vector<DcbApp>>::fail(s);
    return Outcome<std::vector<DcbApp>>(tables[ifname]);
  }

  Status add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) override {
    if (Status s = check("add_apps", ifname, "RTM_SETDCB IEEE APP"); !s.ok()) return s;
    std::vector<DcbApp>& table = tables[ifname];
    for (const DcbApp& a : apps) {
      std::erase_if(table, [&](const DcbApp& t) { return t.selector == a.selector && t.protocol == a.protocol; });
      table.push_back(a);
    }
    writes.push_back("add_apps " + ifname + " " + std::to_string(apps.size()));
    return success();
  }

 private:
  Status check(const std::string& op, const std::string& ifname, const std::string& what) {
    ++calls;
    for (const std::string& key : {op + " " + ifname, op})
      if (auto it = fail.find(key); it != fail.end()) return Status::from_errno(it->second, ifname + ": " + what);
    if (!pfcs.count(ifname)) return Status::from_errno(ENODEV, ifname + ": " + what);
    return success();
  }
};

// ethtool tunables in memory. A (interface, id) pair not in `tunables` answers EOPNOTSUPP, as
// a driver without the tunable does.
class FakeEthtool : public Ethtool {
 public:
  std::map<std::pair<std::string, std::uint32_t>, std::uint16_t> tunables;
  // Injected errnos by operation ("tunable_u16", "set_tunable_u16"), optionally " IFNAME".
  std::map<std::string, int> fail;
  std::uint16_t clamp = 0xffff;  // a set stores at most this (drivers that clamp quietly)
  std::map<std::string, std::map<std::string, std::uint64_t>> statistics;  // missing: EOPNOTSUPP
  int calls = 0;
  std::vector<std::string> writes;  // "set_tunable_u16 ens1f0np0 3 100"

  Outcome<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t id) override {
    if (Status s = check("tunable_u16", ifname, id, "ETHTOOL_GTUNABLE"); !s.ok())
      return Outcome<std::uint16_t>::fail(s);
    return Outcome<std::uint16_t>(tunables.at({ifname, id}));
  }

  Status set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) override {
    if (Status s = check("set_tunable_u16", ifname, id, "ETHTOOL_STUNABLE"); !s.ok()) return s;
    tunables[{ifname, id}] = value < clamp ? value : clamp;
    writes.push_back("set_tunable_u16 " + ifname + " " + std::to_string(id) + " " + std::to_string(value));
    return success();
  }

  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) override {
    ++calls;
    auto it = statistics.find(ifname);
    if (it == statistics.end())
      return Outcome<std::map<std::string, std::uint64_t>>::fail(
          Status::from_errno(EOPNOTSUPP, ifname + ": ETHTOOL_GSTATS"));
    return Outcome<std::map<std::string, std::uint64_t>>(it->second);
  }

 private:
  Status check(const std::string& op, const std::string& ifname, std::uint32_t id, const std::string& what) {
    ++calls;
    std::string context = ifname + ": " + what + " " + std::to_string(id);
    for (const std::string& key : {op + " " + ifname, op})
      if (auto it = fail.find(key); it != fail.end()) return Status::from_errno(it->second, context);
    if (!tunables.count({ifname, id})) return Status::from_errno(EOPNOTSUPP, context);
    return success();
  }
};

// rtnetlink for tests of appliers that must not use it: a call fails the test.
class UnusedRtnl : public Rtnl {
 public:
  Outcome<LinkInfo> link(const std::string& name) override { return Outcome<LinkInfo>::fail(used("link", name)); }
  Status set_link_up(const std::string& name) override { return used("set_link_up", name); }
  Status set_mtu(const std::string& name, int) override { return used("set_mtu", name); }
  Status add_vlan(const std::string& parent, const std::string&, int) override { return used("add_vlan", parent); }
  Outcome<std::vector<std::string>> addresses(const std::string& name) override {
    return Outcome<std::vector<std::string>>::fail(used("addresses", name));
  }
  Status add_address(const std::string& name, const std::string&) override { return used("add_address", name); }
  Outcome<std::vector<RouteInfo>> routes(int table) override {
    return Outcome<std::vector<RouteInfo>>::fail(used("routes", "table " + std::to_string(table)));
  }
  Status add_route(const RouteInfo& route) override { return used("add_route", route.destination); }
  Outcome<std::vector<RuleInfo>> rules() override { return Outcome<std::vector<RuleInfo>>::fail(used("rules", "")); }
  Status add_rule(const RuleInfo& rule) override { return used("add_rule", rule.from); }
  Outcome<RouteLookup> route_get(const std::string& destination, const std::string&) override {
    return Outcome<RouteLookup>::fail(used("route_get", destination));
  }
  Status add_vxlan(const std::string& name, int, const std::string&) override { return used("add_vxlan", name); }
  Outcome<std::vector<std::string>> flood_list(const std::string& name) override {
    return Outcome<std::vector<std::string>>::fail(used("flood_list", name));
  }
  Status add_flood(const std::string& name, const std::string&) override { return used("add_flood", name); }

 private:
  static Status used(const std::string& op, const std::string& about) {
    FAIL("UnusedRtnl: " << op << " " << about);
    return Status::from_errno(ENOSYS, about + ": " + op);
  }
};

// Host for tests of appliers that must not use it: a call fails the test.
class UnusedHost : public Files, public Modules, public RdmaLinks, public PciConfig, public NvmeFabrics, public Icmp {
 public:
  UnusedHost() = default;
  UnusedHost(const UnusedHost&) = delete;
  UnusedHost& operator=(const UnusedHost&) = delete;
  operator Host() { return {*this, *this, *this, *this, *this, *this}; }
  Outcome<std::string> read_file(const std::string& path) override {
    return Outcome<std::string>::fail(used("read_file", path));
  }
  Status write_file(const std::string& path, const std::string&) override { return used("write_file", path); }
  Status make_directory(const std::string& path) override { return used("make_directory", path); }
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override {
    return Outcome<std::vector<std::string>>::fail(used("list_directory", path));
  }
  Outcome<std::size_t> read_block(const std::string& path, std::size_t) override {
    return Outcome<std::size_t>::fail(used("read_block", path));
  }
  bool module_loaded(const std::string& name) override {
    static_cast<void>(used("module_loaded", name));
    return false;
  }
  Status load_module(const std::string& name) override { return used("load_module", name); }
  Status add_rxe(const std::string& name, const std::string&) override { return used("add_rxe", name); }
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override {
    return Outcome<std::vector<std::uint8_t>>::fail(used("pci_config", bdf));
  }
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t, std::uint16_t) override {
    return used("write_pci_config_u16", bdf);
  }
  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override {
    return Outcome<std::string>::fail(used("nvme_fabrics_connect", options));
  }
  Outcome<bool> echo(const std::string&, const std::string& to, int) override {
    return Outcome<bool>::fail(used("echo", to));
  }

 private:
  static Status used(const std::string& op, const std::string& about) {
    FAIL("UnusedHost: " << op << " " << about);
    return Status::from_errno(ENOSYS, about + ": " + op);
  }
};

// The Kernel the DCB and storm appliers take, over given Dcb and Ethtool implementations.
struct DcbKernel {
  DcbKernel(Dcb& dcb, Ethtool& ethtool) : kernel{rtnl, dcb, ethtool, host} {}
  DcbKernel(const DcbKernel&) = delete;  // `kernel` refers to this object's own members
  DcbKernel& operator=(const DcbKernel&) = delete;
  UnusedRtnl rtnl;
  UnusedHost host;
  Kernel kernel;
};

}  // namespace railyard::test
