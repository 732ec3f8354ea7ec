// The appliers that work through Host (modules, Soft-RoCE, trust, ECN, ToS, ACS, NVMe-oF)
// against an in-memory host; any rtnetlink, DCB or ethtool call fails the test.
#pragma once

#include <doctest/doctest.h>

#include "apply/apply.h"
#include "objects/acs.h"
#include "objects/ecn.h"
#include "objects/modules.h"
#include "objects/nvmeof.h"
#include "objects/roce_tos.h"
#include "objects/soft_roce.h"
#include "objects/trust.h"
#include "support/fake_host.h"

using namespace railyard;

namespace railyard::test::host_rig {

using railyard::test::OpenHost;

// The appliers here never touch rtnetlink, DCB or ethtool: any call fails the test.
struct NoRtnl : Rtnl {
  Outcome<LinkInfo> link(const std::string&) override { return fail<LinkInfo>(); }
  Status set_link_up(const std::string&) override { return bad(); }
  Status set_mtu(const std::string&, int) override { return bad(); }
  Status add_vlan(const std::string&, const std::string&, int) override { return bad(); }
  Outcome<std::vector<std::string>> addresses(const std::string&) override { return fail<std::vector<std::string>>(); }
  Status add_address(const std::string&, const std::string&) override { return bad(); }
  Outcome<std::vector<RouteInfo>> routes(int) override { return fail<std::vector<RouteInfo>>(); }
  Status add_route(const RouteInfo&) override { return bad(); }
  Outcome<std::vector<RuleInfo>> rules() override { return fail<std::vector<RuleInfo>>(); }
  Status add_rule(const RuleInfo&) override { return bad(); }
  Outcome<RouteLookup> route_get(const std::string&, const std::string&) override { return fail<RouteLookup>(); }
  Status add_vxlan(const std::string&, int, const std::string&) override { return bad(); }
  Outcome<std::vector<std::string>> flood_list(const std::string&) override { return fail<std::vector<std::string>>(); }
  Status add_flood(const std::string&, const std::string&) override { return bad(); }
  template <class T>
  static Outcome<T> fail() {
    FAIL("rtnetlink used");
    return Outcome<T>::fail(bad());
  }
  static Status bad() { return Status::fail(ENOSYS, "unused"); }
};
struct NoDcb : Dcb {
  Outcome<IeeePfc> pfc(const std::string&) override { return Outcome<IeeePfc>::fail(NoRtnl::bad()); }
  Status set_pfc(const std::string&, const IeeePfc&) override { return NoRtnl::bad(); }
  Outcome<std::vector<DcbApp>> apps(const std::string&) override {
    return Outcome<std::vector<DcbApp>>::fail(NoRtnl::bad());
  }
  Status add_apps(const std::string&, const std::vector<DcbApp>&) override { return NoRtnl::bad(); }
};
struct NoEthtool : Ethtool {
  Outcome<std::uint16_t> tunable_u16(const std::string&, std::uint32_t) override {
    return Outcome<std::uint16_t>::fail(NoRtnl::bad());
  }
  Status set_tunable_u16(const std::string&, std::uint32_t, std::uint16_t) override { return NoRtnl::bad(); }
  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string&) override {
    return Outcome<std::map<std::string, std::uint64_t>>::fail(NoRtnl::bad());
  }
};

struct Rig {
  OpenHost host;
  NoRtnl rtnl;
  NoDcb dcb;
  NoEthtool ethtool;
  Kernel kernel{rtnl, dcb, ethtool, host};
  std::vector<Change> run(Applier a, const Plan& p) {
    std::vector<Change> out;
    a(p, kernel, out);
    return out;
  }
};

inline RailPlan rail(int index, std::string ifname, std::string rdma) {
  RailPlan r;
  r.index = index;
  r.ifname = ifname;
  r.netdev = ifname;
  r.rdma_device = rdma;
  r.roce_tos = 106;
  return r;
}

inline std::string outcomes(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes) out += c.object + ": " + to_string(c.outcome) + "\n";
  return out;
}

inline bool all_unchanged(const std::vector<Change>& changes) {
  for (const auto& c : changes)
    if (c.outcome != ChangeOutcome::unchanged) return false;
  return !changes.empty();
}

}  // namespace railyard::test::host_rig

using namespace railyard::test::host_rig;
