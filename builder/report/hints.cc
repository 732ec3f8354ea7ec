#include "report/hints.h"

#include <algorithm>
#include <vector>

namespace railyard {

namespace {

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

Explanation follows(const CheckId& cause, std::string_view why) {
  return {"follows from " + cause.name() + ": " + std::string(why), cause};
}

// A more precise cause than the kind's usual one (core/check_id.cc), from what was
// observed; an empty hint when it has none.
struct Refinement {
  CheckKind kind;
  Explanation (*refine)(const CheckResult& c);
};

const std::vector<Refinement>& refinements() {
  static const std::vector<Refinement> table = {
      {CheckKind::rail_speed,
       [](const CheckResult& c) -> Explanation {
         if (c.observed != "unknown") return {};
         return follows(CheckId::rail(CheckKind::rail_link, c.id.index), "no speed without a link");
       }},
      {CheckKind::rail_rdma_port,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RDMA device"))
           return {
               "no RDMA device serves this rail: the RDMA driver (mlx5_ib, rxe) is not loaded, or the NIC's "
               "firmware has RoCE disabled",
               std::nullopt};
         return {};
       }},
      {CheckKind::rail_rdma_write,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RoCE v2 GID"))
           return follows(CheckId::rail(CheckKind::rail_roce_v2_gid, c.id.index), "no GID to address the test to");
         if (contains(c.observed, "no RDMA device"))
           return follows(CheckId::rail(CheckKind::rail_rdma_port, c.id.index), "no RDMA device on this rail");
         return {};
       }},
      {CheckKind::rail_gpudirect_write,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RoCE v2 GID"))
           return follows(CheckId::rail(CheckKind::rail_roce_v2_gid, c.id.index), "no GID to address the test to");
         return {};
       }},
      {CheckKind::rail_pause_storm,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.detail, "sending"))
           return {
               "this NIC sends pause frames continuously: a stuck receive queue (hung host, driver fault); storm "
               "prevention should cut it, or the port freezes the switch",
               std::nullopt};
         if (contains(c.detail, "pauses this NIC"))
           return {
               "a peer stuck sending pauses: the switch port, or a NIC behind it whose receive queue is stuck, pauses "
               "this NIC without end, and the pause spreads until the priority freezes fabric-wide (PFC deadlock). "
               "Find the port sending pauses (the switch's per-port PFC counters), make sure the leaf runs its PFC "
               "watchdog (railyard fabric leaf-config gives its times), and reset or isolate the stuck peer",
               std::nullopt};
         return {};
       }},
      {CheckKind::rail_lldp,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.detail, "swapped"))
           return {
               "two rails' cables are swapped: swap them back at the node or the leaf; until then rail-aligned rings "
               "cross the spine and all-reduce bandwidth halves",
               std::nullopt};
         if (contains(c.observed, "nothing heard"))
           return {
               "no LLDP from the far end: enable LLDP on the switch port, or let the host see it (ConnectX: mlxconfig "
               "LLDP_NB_RX_MODE_P1, or turn the firmware's LLDP/DCBX agent off)",
               std::nullopt};
         if (c.observed.rfind("LLDP flood: ", 0) == 0)
           return {
               "something on the rail floods it with LLDP: find the sender (tcpdump -e -i <rail> ether proto 0x88cc "
               "shows its MAC), then the switch port it sits behind; a loop (spanning tree off) or a broken host or "
               "switch agent. Shut that port; the rail cannot be trusted until it is quiet",
               std::nullopt};
         if (contains(c.observed, " LLDP neighbours: "))
           return {
               "more than one switch port answers on this rail: a hub or unmanaged switch between the NIC and the "
               "leaf, a loop, or a host sending LLDP in the leaf's name; trace the cable to the leaf and take out "
               "whatever sits between",
               std::nullopt};
         return {};
       }},
      {CheckKind::rail_bgp,
       [](const CheckResult& c) -> Explanation {
         if (contains(c.detail, "Bad Peer AS"))
           return {
               "the leaf refused this node's AS: the inventory's asn and the leaf's configuration disagree; "
               "regenerate the leaf's configuration with railyard fabric leaf-config from the same inventory",
               std::nullopt};
         if (contains(c.detail, "no router advertisement"))
           return {
               "nothing on the rail's link answers: the leaf port is down or not set up for BGP unnumbered (IPv6 "
               "router advertisements), or the cable goes elsewhere",
               std::nullopt};
         return {};
       }},
      {CheckKind::nvmeof_namespace_read,
       [](const CheckResult& c) -> Explanation {
         if (!contains(c.observed, "no controller")) return {};
         return follows(CheckId::nvmeof(CheckKind::nvmeof_connected, c.id.index), "no controller to read from");
       }},
  };
  return table;
}

Explanation explain_alone(const CheckResult& c) {
  const CheckKind kind = c.id.kind;
  if ((kind == CheckKind::gpu_pcie_link || kind == CheckKind::rail_pcie_link) && contains(c.detail, "downtrained"))
    return {
        "the link trained below what the device can do: reseat the card and its riser, then check the slot "
        "(a damaged or dusty connector downtrains)",
        std::nullopt};
  for (const auto& r : refinements())
    if (r.kind == kind)
      if (Explanation e = r.refine(c); !e.hint.empty()) return e;
  return {std::string(kind_info(kind).hint), std::nullopt};
}

}  // namespace

std::string hint_for(const CheckResult& c) { return explain_alone(c).hint; }

Explanation explain(const CheckResult& c, const std::vector<CheckResult>& all) {
  auto link_down = [](const CheckResult& other) {
    return other.status == CheckStatus::fail && other.id.kind == CheckKind::rail_link;
  };
  const CheckKind k = c.id.kind;
  bool own_link = k == CheckKind::rail_link || k == CheckKind::rail_pcie_link || k == CheckKind::rail_affinity;
  if (c.id.scope() == CheckScope::rail && !own_link)
    for (const auto& other : all)
      if (link_down(other) && other.id.index == c.id.index) return follows(other.id, "the link is down");
  if (k == CheckKind::rails_cross_rdma_write)
    for (const auto& other : all)
      if (link_down(other)) return follows(other.id, "a rail's link is down");
  if (k == CheckKind::gpu_count)
    for (const auto& other : all)
      if (other.id.kind == CheckKind::devices_ready && other.status == CheckStatus::fail &&
          contains(other.detail, " GPU"))
        return follows(other.id, "the GPUs never appeared during the wait for devices");
  return explain_alone(c);
}

std::string hint_for(const CheckResult& c, const std::vector<CheckResult>& all) { return explain(c, all).hint; }

std::vector<const CheckResult*> root_causes(const std::vector<CheckResult>& all) {
  struct Root {
    const CheckResult* check;
    int explains = 0;  // failures that follow from it
  };
  std::vector<Root> roots;
  std::vector<std::pair<const CheckResult*, CheckId>> consequences;
  for (const auto& c : all) {
    if (!c.failing()) continue;
    auto cause = explain(c, all).follows_from;
    bool consequence = cause && std::any_of(all.begin(), all.end(), [&](const CheckResult& o) {
                         return o.id == *cause && o.failing() && &o != &c;
                       });
    if (consequence) consequences.push_back({&c, *cause});
    else roots.push_back({&c});
  }
  for (auto& r : roots)
    for (const auto& [c, cause] : consequences) r.explains += cause == r.check->id;
  std::stable_sort(roots.begin(), roots.end(), [](const Root& a, const Root& b) { return a.explains > b.explains; });
  std::vector<const CheckResult*> out;
  for (const auto& r : roots) out.push_back(r.check);
  return out;
}

std::string hint_for_problem(const std::string& problem) {
  if (contains(problem, "hardware.rails names"))
    return "the recipe names rail interfaces this node does not have as named: a different slot population or "
           "interface naming on this node, or the wrong SKU's image";
  if (contains(problem, " rails; ") || contains(problem, "no RDMA NIC"))
    return "RDMA NICs are missing: a NIC not seated, its driver or firmware did not come up (dmesg: mlx5_core), RoCE "
           "disabled in the NIC firmware, or the wrong SKU's image";
  if (contains(problem, "could not be pinned"))
    return "a GPU has no rail NIC near enough: compare the slot population with the vendor's layout";
  return "the plan could not be made for this node, so nothing was applied: see the problem";
}

}  // namespace railyard
