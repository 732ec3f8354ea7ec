#include "report/hints.h"

#include <algorithm>
#include <vector>

namespace railyard {

namespace {

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

Explanation follows(const CheckId& cause, std::string_view why) {
  return {"follows from " + cause.name() + ": " + std::string(why), cause};
}

struct Hint {
  CheckKind kind;
  // The usual cause; `refine` may give a more precise one from what was observed (an
  // empty hint when it has none).
  std::string_view text;
  Explanation (*refine)(const CheckResult& c) = nullptr;
};

const std::vector<Hint>& hints() {
  static const std::vector<Hint> table = {
      {CheckKind::gpu_count,
       "GPUs missing from the bus: fallen off (Xid 79 in dmesg), not seated, or the driver did not bind; "
       "check nvidia-smi, dmesg and the BMC's event log"},
      {CheckKind::gpu_model,
       "a GPU of another model than the recipe's: the wrong SKU's recipe for this node, or a swapped board"},
      {CheckKind::gpu_pcie_link,
       "the GPU's PCIe link is slower or narrower than the recipe wants: reseat the GPU or its riser, "
       "check the slot and the BIOS PCIe generation setting"},
      {CheckKind::gpu_nvml,
       "NVML cannot reach the GPU: the nvidia module not loaded or failed (dmesg: NVRM), "
       "libnvidia-ml.so.1 of another driver version than the module, or the GPU fell off the bus"},
      {CheckKind::gpu_persistence,
       "persistence mode off: enable nvidia-persistenced so the driver keeps the GPU "
       "initialised between jobs"},
      {CheckKind::gpu_ecc,
       "uncorrectable memory errors or ECC off: keep the node out of jobs, run dcgmi diag -r 3; a GPU "
       "that keeps having them goes back to the vendor"},
      {CheckKind::gpu_row_remap,
       "a row remap waits for a GPU reset (reset the GPU or reboot), or failed (no spare rows: "
       "the GPU needs service)"},
      {CheckKind::gpu_xid,
       "the driver logged a GPU fault since boot: look the XID up in NVIDIA's XID catalog; 79 is a "
       "GPU fallen off the bus (power, riser, thermal), 48/63/64 memory, 74 NVLink"},
      {CheckKind::gpu_throttle,
       "the GPU slows itself down in hardware: cooling (fans, airflow, heatsink) or power "
       "(a power brake asserted by the system, PSU cabling)"},
      {CheckKind::gpu_temperature, "hot before any job runs: a failed fan, blocked airflow, or a heatsink off its die"},
      {CheckKind::gpu_nvml_pcie,
       "the GPU's link trained narrower than it can: reseat the GPU or its riser, check the slot"},
      {CheckKind::gpu_nvlink,
       "NVLinks down: check nvidia-fabricmanager and the NVSwitch trays (nvidia-smi nvlink -s); a "
       "link that stays down after a reset needs service"},
      {CheckKind::nccl_all_reduce,
       "NCCL's all-reduce across the GPUs is slow or wrong: NVLinks down or fabric manager not "
       "running (gpu.N.nvlink), a GPU throttled or on a narrow link; wrong results need the GPU "
       "or NVSwitch serviced"},
      {CheckKind::rail_gpu_topology,
       "NVML and the PCI tree railyard read disagree on where the GPU sits: compare "
       "nvidia-smi topo -m with the plan's rails (a BIOS that hides PCIe switches?)"},
      {CheckKind::devices_ready,
       "devices the recipe needs never appeared: a card not seated or dead (lspci), a driver that "
       "did not bind or failed its firmware load (dmesg), or a recipe written for other hardware"},
      {CheckKind::rails_count,
       "rail NICs disappeared after planning: a NIC reset or firmware fault (dmesg: mlx5_core), or the "
       "driver was unloaded"},
      {CheckKind::rails_cross_rdma_write,
       "RDMA between rails fails while each rail works alone: routing between the rail subnets (policy routing, "
       "arp_ignore/arp_announce on shared subnets) or the spine does not carry the RoCE priority losslessly"},
      {CheckKind::rail_affinity,
       "the GPU and its rail NIC are far apart in the PCIe tree: a card in the wrong slot or riser; "
       "compare the slot population with the vendor's layout"},
      {CheckKind::rail_pcie_link,
       "the NIC's PCIe link downtrained: reseat the NIC or its riser, check the slot and the BIOS "
       "PCIe generation setting"},
      {CheckKind::rail_link,
       "no carrier: reseat or swap the cable and transceiver, and check that the switch port is enabled "
       "(not admin-down or err-disabled)"},
      {CheckKind::rail_speed,
       "the link negotiated below the rail speed: a lower-grade cable or transceiver, a switch port "
       "configured slower, or an autonegotiation/FEC mismatch",
       [](const CheckResult& c) -> Explanation {
         if (c.observed != "unknown") return {};
         return follows(CheckId::rail(CheckKind::rail_link, c.id.index), "no speed without a link");
       }},
      {CheckKind::rail_mtu,
       "the interface MTU is not the planned jumbo MTU: something reset it (NetworkManager, netplan, "
       "cloud-init); the switch port must carry the same MTU"},
      {CheckKind::rail_vlan,
       "the rail's VLAN device is missing or has another id: 8021q not loaded, or another network "
       "manager owns the interface; the switch port must trunk the VLAN"},
      {CheckKind::rail_address,
       "the rail address is missing: DHCP, netplan or NetworkManager manages the rail and removed "
       "it, or the address is a duplicate on the rail"},
      {CheckKind::rail_no_default_route,
       "a default route over a rail: DHCP is running on the rail interface; rails must "
       "never carry the default route (disable DHCP/netplan on rails)"},
      {CheckKind::rail_pfc,
       "the NIC's DCBX is in firmware (willing) mode, or lldpad rewrote PFC: set the NIC to host-controlled "
       "DCBX (mlxconfig LLDP_NB_DCBX_P1=0) or stop lldpad, or make the switch port advertise PFC on the "
       "RoCE priority"},
      {CheckKind::rail_dscp_map,
       "the DSCP application entry is missing: firmware DCBX or lldpad replaced the NIC's app "
       "table; use host-controlled DCBX"},
      {CheckKind::rail_trust,
       "the NIC does not trust DSCP: the driver lacks qos/trust (upstream mlx5: the DSCP app entry "
       "implies it) or a tool (mlnx_qos) reset it"},
      {CheckKind::rail_ecn,
       "ECN is not enabled on the RoCE priority: the driver has no ECN controls (upstream mlx5) or they "
       "were reset; DOCA-OFED has them"},
      {CheckKind::rail_roce_tos,
       "the RDMA-CM ToS is not set: configfs is not mounted at /sys/kernel/config or rdma_cm is "
       "not loaded"},
      {CheckKind::rail_storm_prevention,
       "PFC storm prevention is not set: the NIC firmware is too old for the "
       "pfc-prevention-tout tunable; update the firmware"},
      {CheckKind::rail_rdma_port,
       "the RDMA port is not ACTIVE: the link under it is down, mlx5_ib did not bind, or (Soft-RoCE) "
       "no rxe device was created on the interface",
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RDMA device"))
           return {
               "no RDMA device serves this rail: the RDMA driver (mlx5_ib, rxe) is not loaded, or the NIC's "
               "firmware has RoCE disabled",
               std::nullopt};
         return {};
       }},
      {CheckKind::rail_roce_v2_gid,
       "no RoCE v2 GID for the rail address: the address is not on the rail's VLAN device "
       "(the GID table mirrors the addresses of the interface), or the VLAN is missing; check "
       "rail.N.address and rail.N.vlan"},
      {CheckKind::rail_rdma_write,
       "the RDMA WRITE self-test failed or was slow: PFC/ECN differ between the NIC and the switch, "
       "an MTU mismatch, or the port pauses; see this rail's pfc, mtu and pause_storm checks",
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RoCE v2 GID"))
           return follows(CheckId::rail(CheckKind::rail_roce_v2_gid, c.id.index), "no GID to address the test to");
         if (contains(c.observed, "no RDMA device"))
           return follows(CheckId::rail(CheckKind::rail_rdma_port, c.id.index), "no RDMA device on this rail");
         return {};
       }},
      {CheckKind::rail_gpudirect_write,
       "the NIC could not read or write the GPU's memory: with dma-buf it needs the open "
       "NVIDIA kernel modules and a kernel with dma-buf support; without, nvidia-peermem "
       "loaded (gpudirect.peermem). Slow: the GPU and NIC meet at the host bridge (see "
       "this rail's affinity and gpudirect.acs)",
       [](const CheckResult& c) -> Explanation {
         if (contains(c.observed, "no RoCE v2 GID"))
           return follows(CheckId::rail(CheckKind::rail_roce_v2_gid, c.id.index), "no GID to address the test to");
         return {};
       }},
      {CheckKind::rail_pause_storm, "a pause storm on the RoCE priority",
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
       "the rail's cable does not reach the leaf and port it must: cabling (rail i of every node to "
       "leaf i), or LLDP off on the switch port or kept from the host by the NIC's firmware agent",
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
      {CheckKind::rail_lldp_pfc,
       "the leaf port's PFC differs from the host's: configure the port from railyard fabric "
       "leaf-config; the host is not DCBX-willing and keeps its own"},
      {CheckKind::rail_lldp_mtu,
       "the leaf port's MTU is below the rail's frames: raise it (railyard fabric leaf-config's "
       "mtu)"},
      {CheckKind::rail_lldp_vlan,
       "the leaf port does not carry the rail's VLAN: add it to the port (railyard fabric "
       "leaf-config's vlans)"},
      {CheckKind::rail_bgp,
       "the rail's BGP session with its leaf is not Established: the leaf port has no BGP "
       "unnumbered neighbour (configure it from railyard fabric leaf-config), expects another AS for "
       "this node, or the cable reaches another port",
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
      {CheckKind::rail_bgp_prefixes,
       "the leaf sends fewer fabric routes than the recipe expects: the other nodes are not "
       "up yet, or the leaf filters the fabric's prefixes"},
      {CheckKind::rail_route,
       "from this rail's address some of the fabric leaves by another rail: the rail's table or "
       "source rule is missing (see apply's changes), so RoCE traffic would cross rails"},
      {CheckKind::tenant_vxlan,
       "the tenant VXLAN device is missing, down or on another VNI or VTEP: see apply's "
       "changes; another network manager may hold the device"},
      {CheckKind::tenant_vtep,
       "a remote VTEP of the tenant is not flooded to or not routed: its node's VTEP /32 is not "
       "announced (no [tenant] there, or its sessions are down) or the leaves filter it"},
      {CheckKind::tenant_isolation,
       "an address of another tenant's VNI answers: the two VNIs are bridged or routed "
       "together somewhere (a VTEP in both, a leaf or gateway leaking between them)"},
      {CheckKind::nvmeof_connected,
       "NVMe-oF is not live: the target is unreachable on the rail, its ACL lacks this host's NQN "
       "(allowed_hosts), the subsystem NQN is wrong, or nvme-rdma is not loaded"},
      {CheckKind::nvmeof_namespace_read,
       "the controller is live but no namespace is readable: the namespace is not enabled on "
       "the target or not mapped to this host's NQN",
       [](const CheckResult& c) -> Explanation {
         if (!contains(c.observed, "no controller")) return {};
         return follows(CheckId::nvmeof(CheckKind::nvmeof_connected, c.id.index), "no controller to read from");
       }},
      {CheckKind::gpudirect_peermem,
       "nvidia-peermem is not loaded: GPUDirect RDMA falls back to host memory; the module must be "
       "built against the RDMA stack in the image (OFED vs inbox)"},
      {CheckKind::gpudirect_acs,
       "ACS still redirects peer-to-peer traffic at this PCIe port: the BIOS re-enables ACS at boot, "
       "or the write did not stick; disable ACS in the BIOS"},
  };
  return table;
}

Explanation explain_alone(const CheckResult& c) {
  const CheckKind kind = c.id.kind;
  if (kind == CheckKind::apply_failed)
    return {
        "the kernel refused the change (see the detail): the driver lacks the knob, or another network manager "
        "holds the interface",
        std::nullopt};
  if ((kind == CheckKind::gpu_pcie_link || kind == CheckKind::rail_pcie_link) && contains(c.detail, "downtrained"))
    return {
        "the link trained below what the device can do: reseat the card and its riser, then check the slot "
        "(a damaged or dusty connector downtrains)",
        std::nullopt};
  for (const auto& h : hints())
    if (h.kind == kind) {
      if (h.refine)
        if (Explanation r = h.refine(c); !r.hint.empty()) return r;
      return {std::string(h.text), std::nullopt};
    }
  return {};
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
