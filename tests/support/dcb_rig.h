// The DCB and storm appliers (pfc, dscp_app, storm) against in-memory DCB and ethtool fakes:
// two rails, the first VLAN-tagged, whose DCB must go to the physical interfaces.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/dry_run_dcb.h"
#include "kernel/dry_run_ethtool.h"
#include "objects/dscp_app.h"
#include "objects/pfc.h"
#include "objects/storm.h"
#include "support/fake_dcb.h"

using namespace railyard;
using railyard::test::DcbKernel;
using railyard::test::FakeDcb;
using railyard::test::FakeEthtool;

namespace railyard::test::dcb_rig {

constexpr std::uint32_t kStorm = kEthtoolPfcPreventionTout;

inline RailPlan rail(int index, const std::string& ifname, std::optional<int> vlan = std::nullopt) {
  RailPlan r;
  r.index = index;
  r.ifname = ifname;
  r.vlan = vlan;
  r.netdev = vlan ? ifname + "." + std::to_string(*vlan) : ifname;
  r.mtu = 9000;
  r.pfc_enable = 1 << 3;
  r.trust = Trust::dscp;
  r.pfc_priority = 3;
  r.roce_dscp = 26;
  r.dscp_to_priority.resize(64);
  for (int d = 0; d < 64; ++d) r.dscp_to_priority[static_cast<std::size_t>(d)] = d >> 3;
  r.dscp_to_priority[26] = 3;
  r.storm_timeout_ms = 100;
  return r;
}

// Two rails, the first VLAN-tagged: DCB and ethtool must use the physical interfaces.
inline Plan two_rails() {
  Plan p;
  p.recipe = "test";
  p.management = "eno1";
  p.rails = {rail(0, "ens1f0np0", 200), rail(1, "ens2f0np0")};
  return p;
}

// Both rails' ports with DCB, PFC off, the NIC's cable-length delay set, no app entries,
// storm prevention at the driver's default (auto).
inline void ports(FakeDcb& dcb, FakeEthtool& ethtool) {
  for (const char* ifname : {"ens1f0np0", "ens2f0np0"}) {
    dcb.pfcs[ifname] = IeeePfc{8, 0x00, 0, 32};
    ethtool.tunables[{ifname, kStorm}] = 0xffff;
  }
}

inline std::vector<Change> run(void (*applier)(const Plan&, Kernel&, std::vector<Change>&), const Plan& plan, Dcb& dcb,
                               Ethtool& ethtool) {
  DcbKernel k(dcb, ethtool);
  std::vector<Change> out;
  applier(plan, k.kernel, out);
  return out;
}

inline std::vector<DcbApp> planned_apps(const RailPlan& r) {
  std::vector<DcbApp> apps;
  for (std::size_t d = 0; d < r.dscp_to_priority.size(); ++d)
    apps.push_back({5, static_cast<std::uint8_t>(r.dscp_to_priority[d]), static_cast<std::uint16_t>(d)});
  return apps;
}

inline int priority_of(const std::vector<DcbApp>& table, int dscp) {
  int prio = -1, n = 0;
  for (const DcbApp& a : table)
    if (a.selector == 5 && a.protocol == dscp) prio = a.priority, ++n;
  return n == 1 ? prio : -n;  // -n: several entries
}

}  // namespace railyard::test::dcb_rig

using namespace railyard::test::dcb_rig;
