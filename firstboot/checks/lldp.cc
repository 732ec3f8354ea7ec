#include "checks/lldp.h"

#include <set>

#include "text.h"
#include "objects/result.h"

namespace railyard::checks {

namespace {

// The physical port LLDP is heard on: the rail's interface, or a bond's first port (a
// RoCE LAG's ports reach the same leaf pair; the first one stands for the rail).
std::string lldp_port(const RailPlan& rail) { return rail.bond_ports.empty() ? rail.ifname : rail.bond_ports.front(); }

LldpHeard heard_on(const VerifyContext& ctx, const RailPlan& rail) {
  return ctx.lldp->heard(lldp_port(rail), ctx.lldp->deadline());
}

bool matches(const std::string& expected, const std::string& got) { return expected.empty() || expected == got; }

bool port_matches(const std::string& expected, const LldpNeighbor& n) {
  return matches(expected, n.port_id) || (!expected.empty() && expected == n.port_description);
}

// Where a cable that reaches the wrong leaf goes: the rail whose leaf it is, and whether
// that rail's cable comes back here (two cables swapped).
std::string where_it_leads(const VerifyContext& ctx, const RailPlan& rail, const LldpNeighbor& seen) {
  for (const auto& other : ctx.plan.rails) {
    if (other.index == rail.index || other.lldp_system.empty() || other.lldp_system != seen.system_name) continue;
    std::string out = "this cable reaches rail " + std::to_string(other.index) + "'s leaf (" + other.lldp_system + ")";
    auto back = heard_on(ctx, other);
    if (back.neighbor && !rail.lldp_system.empty() && back.neighbor->system_name == rail.lldp_system)
      out += ", and rail " + std::to_string(other.index) + " (" + lldp_port(other) + ") hears rail " +
             std::to_string(rail.index) + "'s leaf " + neighbor_name(*back.neighbor) + ": the cables of rails " +
             std::to_string(std::min(rail.index, other.index)) + " and " +
             std::to_string(std::max(rail.index, other.index)) + " are swapped";
    else if (back.neighbor) out += "; rail " + std::to_string(other.index) + " hears " + neighbor_name(*back.neighbor);
    return out + ". Rail-aligned rings then cross the spine and all-reduce bandwidth halves";
  }
  return "the rail is cabled to a leaf or port it was not planned for";
}

// The neighbour for the checks of what it advertises; none: the check says why and skips.
const LldpNeighbor* neighbour_or_skip(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r, LldpHeard& h) {
  if (!ctx.lldp) {
    r.status = CheckStatus::skip;
    r.detail = "nothing listened for LLDP";
    return nullptr;
  }
  h = heard_on(ctx, rail);
  if (h.neighbor) return &*h.neighbor;
  r.status = CheckStatus::skip;
  r.observed = "no LLDP neighbour";
  r.detail = "see rail." + std::to_string(rail.index) + ".lldp";
  return nullptr;
}

// Every neighbour heard, the first one first: "leaf-r0 port swp7 (chassis 0c:42:a1:00:00:00)".
std::vector<std::string> heard_names(const LldpHeard& h) {
  std::vector<std::string> out;
  if (h.neighbor) out.push_back(neighbor_name(*h.neighbor) + " (chassis " + h.neighbor->chassis_id + ")");
  for (const auto& o : h.others) out.push_back(neighbor_name(o) + " (chassis " + o.chassis_id + ")");
  return out;
}

std::string pfc_text(const LldpPfc& p) {
  std::vector<std::string> prios;
  for (int i = 0; i < 8; ++i)
    if (p.enabled & (1u << i)) prios.push_back(std::to_string(i));
  return "PFC enable " + hex(p.enabled, 2) + " (" + (prios.empty() ? "no priority" : "priority " + join(prios, ", ")) +
         "), capability " + std::to_string(p.capability) + (p.willing ? ", willing" : ", not willing");
}

}  // namespace

std::string neighbor_name(const LldpNeighbor& n) {
  std::string system = n.system_name.empty() ? "chassis " + n.chassis_id : n.system_name;
  return system + " port " + n.port_id;
}

std::vector<std::string> lldp_listen_ports(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& rail : plan.rails) out.push_back(lldp_port(rail));
  return out;
}

nlohmann::ordered_json to_json(const LldpNeighbor& n) {
  using J = nlohmann::ordered_json;
  J pfc = n.pfc ? J{{"willing", n.pfc->willing},
                    {"mbc", n.pfc->mbc},
                    {"capability", n.pfc->capability},
                    {"enabled", hex(n.pfc->enabled, 2)}}
                : J(nullptr);
  J vlans = J::array();
  for (const auto& v : n.vlan_names) vlans.push_back({{"vid", v.vid}, {"name", v.name}});
  return {{"system_name", n.system_name},
          {"port_id", n.port_id},
          {"port_description", n.port_description},
          {"chassis_id", n.chassis_id},
          {"source_mac", n.source_mac},
          {"ttl_s", n.ttl_s},
          {"system_description", n.system_description},
          {"pfc", pfc},
          {"max_frame_size", n.max_frame_size ? J(*n.max_frame_size) : J(nullptr)},
          {"port_vlan_id", n.port_vlan_id ? J(*n.port_vlan_id) : J(nullptr)},
          {"vlans", vlans},
          {"other_tlvs", n.other_tlvs},
          {"other_tlvs_left_out", n.other_tlvs_left_out}};
}

nlohmann::ordered_json lldp_report(const Plan& plan, LldpNeighbors& lldp) {
  using J = nlohmann::ordered_json;
  J out = J::array();
  for (const auto& rail : plan.rails) {
    LldpHeard h = lldp.heard(lldp_port(rail), std::chrono::steady_clock::time_point{});  // what is known by now
    J others = J::array();
    for (const auto& o : h.others) others.push_back(to_json(o));
    out.push_back({{"rail", rail.index},
                   {"ifname", lldp_port(rail)},
                   {"expected",
                    {{"system", rail.lldp_system.empty() ? J(nullptr) : J(rail.lldp_system)},
                     {"port", rail.lldp_port.empty() ? J(nullptr) : J(rail.lldp_port)}}},
                   {"neighbor", h.neighbor ? to_json(*h.neighbor) : J(nullptr)},
                   {"frames", h.frames},
                   {"invalid", h.invalid},
                   {"other_neighbors", others},
                   {"flood_per_s", h.flood_per_s}});
  }
  return out;
}

void rails_unit(const VerifyContext& ctx, CheckResult& r) {
  if (!ctx.lldp) {
    r.status = CheckStatus::skip;
    r.detail = "nothing listened for LLDP";
    return;
  }
  std::vector<std::string> stray, unheard;
  for (const auto& rail : ctx.plan.rails) {
    LldpHeard h = heard_on(ctx, rail);
    if (!h.neighbor) {
      unheard.push_back(std::to_string(rail.index));
      continue;
    }
    const std::string& system = h.neighbor->system_name;
    if (matches(rail.lldp_system, system)) continue;
    // Whose leaf it is: the unit and rail whose expectation names it.
    std::string whose = "no unit's leaf";
    for (const auto& u : ctx.plan.units)
      for (const auto& other : ctx.plan.rails)
        if (expand_lldp_template(ctx.plan.lldp.expect_system, other.index, u) == system)
          whose = u + "'s rail " + std::to_string(other.index) + " leaf";
    stray.push_back("rail " + std::to_string(rail.index) + " reaches " + neighbor_name(*h.neighbor) + ", " + whose);
  }
  if (!stray.empty())
    return fail(r, join(stray, "; "),
                ctx.plan.node + " is in " + ctx.plan.unit +
                    " ([fabric.topology]): its cables must reach that unit's leaves, one per rail");
  if (!unheard.empty()) {
    std::string observed = "no LLDP neighbour on rail(s) " + join(unheard, ", ");
    if (ctx.plan.lldp.required) return fail(r, observed, "see rail.N.lldp");
    return warn(r, observed, "see rail.N.lldp (fabric.lldp.required = false: a warning)");
  }
  pass(r, "every rail on " + ctx.plan.unit + "'s leaves");
}

void rail_lldp(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (!ctx.lldp) {
    r.status = CheckStatus::skip;
    r.detail = "nothing listened for LLDP";
    return;
  }
  LldpHeard h = heard_on(ctx, rail);
  // Both fail whatever fabric.lldp.required says: the link reaches more than one switch
  // port, or someone on it sends what no switch does.
  if (h.flood_per_s > 0) {
    std::string detail =
        "a switch sends one LLDP frame every 30 s: a misbehaving switch port, a loop or a host "
        "flooding the rail. The agent reads at most " +
        std::to_string(kLldpFramesPerSecond) +
        " a second and the kernel drops the rest, so what was heard may not be the leaf";
    if (h.neighbor) detail += " (heard: " + join(heard_names(h), "; ") + ")";
    return fail(r, "LLDP flood: " + std::to_string(h.flood_per_s) + " frames a second on " + lldp_port(rail), detail);
  }
  if (h.neighbor && !h.others.empty())
    return fail(
        r, std::to_string(1 + h.others.size()) + " LLDP neighbours: " + join(heard_names(h), "; "),
        "one rail's cable must reach one switch port: a hub or unmanaged switch between the NIC and the leaf, a "
        "loop, or a host sending LLDP in the leaf's name (spoofing it); the first one heard is the one the other "
        "LLDP checks read");
  if (!h.neighbor) {
    std::string seconds = std::to_string(ctx.plan.lldp.wait_s) + " s";
    std::string observed = h.frames == 0 ? "nothing heard on " + lldp_port(rail) + " in " + seconds
                                         : std::to_string(h.frames) + " LLDP frame(s), none valid: " + h.invalid;
    if (h.frames == 0 && !h.invalid.empty()) observed = h.invalid;
    std::string detail =
        "no LLDP from the far end: LLDP is off on the switch port, the NIC's firmware runs its own "
        "LLDP agent and keeps the frames from the host (ConnectX: mlxconfig LLDP_NB_RX_MODE_P1), or "
        "the cable is not connected to a switch";
    if (ctx.plan.lldp.required) fail(r, observed, detail);
    else warn(r, observed, detail + " (fabric.lldp.required = false: a warning)");
    return;
  }
  const LldpNeighbor& n = *h.neighbor;
  std::string observed = neighbor_name(n) + " (chassis " + n.chassis_id + ")";
  bool system_ok = matches(rail.lldp_system, n.system_name), port_ok = port_matches(rail.lldp_port, n);
  if (system_ok && port_ok) return pass(r, observed);
  std::vector<std::string> wrong;
  if (!system_ok) wrong.push_back("system '" + n.system_name + "', want '" + rail.lldp_system + "'");
  if (!port_ok) wrong.push_back("port '" + n.port_id + "', want '" + rail.lldp_port + "'");
  std::string detail = join(wrong, "; ") + ": ";
  detail += system_ok ? "the cable reaches the right leaf on another port (a neighbouring node's?)"
                      : where_it_leads(ctx, rail, n);
  fail(r, observed, detail);
}

void rail_lldp_pfc(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  LldpHeard h;
  const LldpNeighbor* n = neighbour_or_skip(ctx, rail, r, h);
  if (!n) return;
  if (!n->pfc)
    return warn(
        r, "no PFC configuration TLV from " + neighbor_name(*n),
        "the leaf does not advertise its PFC (DCBX off on the port): losslessness cannot be confirmed from the host");
  std::string observed = pfc_text(*n->pfc);
  if (n->pfc->enabled == static_cast<unsigned>(rail.pfc_enable)) return pass(r, observed);
  fail(r, observed,
       "the leaf's lossless priorities differ from the host's (" + hex(static_cast<unsigned>(rail.pfc_enable), 2) +
           "): RoCE on priority " + std::to_string(rail.pfc_priority) +
           " is dropped under congestion where the leaf does not pause it, and pauses the leaf sends on other "
           "priorities stop traffic the host never meant to be lossless. The host is not DCBX-willing and keeps its "
           "setting: fix the switch port (railyard fabric leaf-config)");
}

void rail_lldp_mtu(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  LldpHeard h;
  const LldpNeighbor* n = neighbour_or_skip(ctx, rail, r, h);
  if (!n) return;
  if (!n->max_frame_size)
    return warn(
        r, "no maximum frame size TLV from " + neighbor_name(*n),
        "the leaf does not advertise its frame size (802.3 TLV off): the MTU cannot be confirmed from the host");
  int want = rail_frame_size(rail);
  std::string observed = "maximum frame size " + std::to_string(*n->max_frame_size);
  if (*n->max_frame_size >= want) return pass(r, observed);
  fail(r, observed,
       "the leaf port drops the rail's full-size frames (MTU " + std::to_string(rail.mtu) + " + 18" +
           (rail.vlan ? " + 4 for the VLAN tag" : "") + " = " + std::to_string(want) +
           " bytes): large RDMA messages stall while small ones pass; raise the port's MTU");
}

void rail_lldp_vlan(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  LldpHeard h;
  const LldpNeighbor* n = neighbour_or_skip(ctx, rail, r, h);
  if (!n || !rail.vlan) return;
  std::set<int> vids;
  std::vector<std::string> seen;
  if (n->port_vlan_id && *n->port_vlan_id != 0) {
    vids.insert(*n->port_vlan_id);
    seen.push_back("port VLAN " + std::to_string(*n->port_vlan_id));
  }
  for (const auto& v : n->vlan_names) {
    vids.insert(v.vid);
    seen.push_back("VLAN " + std::to_string(v.vid) + (v.name.empty() ? "" : " '" + v.name + "'"));
  }
  if (seen.empty())
    return warn(r, "no VLAN TLVs from " + neighbor_name(*n),
                "the leaf does not advertise its VLANs: the rail's VLAN cannot be confirmed from the host");
  std::string observed = join(seen, ", ");
  if (vids.count(*rail.vlan)) return pass(r, observed);
  fail(r, observed,
       "the leaf port does not carry the rail's VLAN " + std::to_string(*rail.vlan) +
           ": its tagged RoCE frames are dropped at the switch");
}

}  // namespace railyard::checks
