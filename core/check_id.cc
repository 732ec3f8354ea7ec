#include "check_id.h"

#include <array>
#include <cctype>

namespace railyard {

namespace {

using K = CheckKind;
using S = CheckScope;

// One row per kind, in enum order (the static_asserts below check it at compile time): its
// scope, its name's word, what it reads and when it is evaluated, and the usual cause of its
// failure for operators (refined from what was observed in builder/report/hints.cc).
constexpr std::array<CheckKindInfo, kCheckKinds> kKinds = {{
    {K::devices_ready, S::node, "devices.ready", 0,
     "devices the recipe needs never appeared: a card not seated or dead (lspci), a driver that did not bind "
     "or failed its firmware load (dmesg), or a recipe written for other hardware"},
    {K::gpu_count, S::node, "gpu.count", 0,
     "GPUs missing from the bus: fallen off (Xid 79 in dmesg), not seated, or the driver did not bind; check "
     "nvidia-smi, dmesg and the BMC's event log"},
    {K::gpu_model, S::node, "gpu.model", 0,
     "a GPU of another model than the recipe's: the wrong SKU's recipe for this node, or a swapped board"},
    {K::gpu_pcie_link, S::gpu, "pcie_link", 0,
     "the GPU's PCIe link is slower or narrower than the recipe wants: reseat the GPU or its riser, check the "
     "slot and the BIOS PCIe generation setting"},
    {K::gpu_nvml, S::gpu, "nvml", kReadsNvml,
     "NVML cannot reach the GPU: the nvidia module not loaded or failed (dmesg: NVRM), libnvidia-ml.so.1 of "
     "another driver version than the module, or the GPU fell off the bus"},
    {K::gpu_persistence, S::gpu, "persistence", kReadsNvml,
     "persistence mode off: enable nvidia-persistenced so the driver keeps the GPU initialised between jobs"},
    {K::gpu_ecc, S::gpu, "ecc", kReadsNvml,
     "uncorrectable memory errors or ECC off: keep the node out of jobs, run dcgmi diag -r 3; a GPU that "
     "keeps having them goes back to the vendor"},
    {K::gpu_row_remap, S::gpu, "row_remap", kReadsNvml,
     "a row remap waits for a GPU reset (reset the GPU or reboot), or failed (no spare rows: the GPU needs "
     "service)"},
    {K::gpu_xid, S::gpu, "xid", 0,
     "the driver logged a GPU fault since boot: look the XID up in NVIDIA's XID catalog; 79 is a GPU fallen "
     "off the bus (power, riser, thermal), 48/63/64 memory, 74 NVLink"},
    {K::gpu_throttle, S::gpu, "throttle", kReadsNvml,
     "the GPU slows itself down in hardware: cooling (fans, airflow, heatsink) or power (a power brake "
     "asserted by the system, PSU cabling)"},
    {K::gpu_temperature, S::gpu, "temperature", kReadsNvml,
     "hot before any job runs: a failed fan, blocked airflow, or a heatsink off its die"},
    {K::gpu_nvml_pcie, S::gpu, "nvml_pcie", kReadsNvml,
     "the GPU's link trained narrower than it can: reseat the GPU or its riser, check the slot"},
    {K::gpu_nvlink, S::gpu, "nvlink", kReadsNvml,
     "NVLinks down: check nvidia-fabricmanager and the NVSwitch trays (nvidia-smi nvlink -s); a link that "
     "stays down after a reset needs service"},
    {K::rails_count, S::node, "rails.count", 0,
     "rail NICs disappeared after planning: a NIC reset or firmware fault (dmesg: mlx5_core), or the driver "
     "was unloaded"},
    {K::rail_affinity, S::rail, "affinity", 0,
     "the GPU and its rail NIC are far apart in the PCIe tree: a card in the wrong slot or riser; compare the "
     "slot population with the vendor's layout"},
    {K::rail_gpu_topology, S::rail, "gpu_topology", kReadsNvml,
     "NVML and the PCI tree railyard read disagree on where the GPU sits: compare nvidia-smi topo -m with the "
     "plan's rails (a BIOS that hides PCIe switches?)"},
    {K::rail_pcie_link, S::rail, "pcie_link", 0,
     "the NIC's PCIe link downtrained: reseat the NIC or its riser, check the slot and the BIOS PCIe "
     "generation setting"},
    {K::rail_link, S::rail, "link", 0,
     "no carrier: reseat or swap the cable and transceiver, and check that the switch port is enabled (not "
     "admin-down or err-disabled)"},
    {K::rail_speed, S::rail, "speed", 0,
     "the link negotiated below the rail speed: a lower-grade cable or transceiver, a switch port configured "
     "slower, or an autonegotiation/FEC mismatch"},
    {K::rail_mtu, S::rail, "mtu", 0,
     "the interface MTU is not the planned jumbo MTU: something reset it (NetworkManager, netplan, "
     "cloud-init); the switch port must carry the same MTU"},
    {K::rail_vlan, S::rail, "vlan", 0,
     "the rail's VLAN device is missing or has another id: 8021q not loaded, or another network manager owns "
     "the interface; the switch port must trunk the VLAN"},
    {K::rail_address, S::rail, "address", 0,
     "the rail address is missing: DHCP, netplan or NetworkManager manages the rail and removed it, or the "
     "address is a duplicate on the rail"},
    {K::rail_no_default_route, S::rail, "no_default_route", 0,
     "a default route over a rail: DHCP is running on the rail interface; rails must never carry the default "
     "route (disable DHCP/netplan on rails)"},
    {K::rail_pfc, S::rail, "pfc", kReadsDcb,
     "the NIC's DCBX is in firmware (willing) mode, or lldpad rewrote PFC: set the NIC to host-controlled "
     "DCBX (mlxconfig LLDP_NB_DCBX_P1=0) or stop lldpad, or make the switch port advertise PFC on the RoCE "
     "priority"},
    {K::rail_trust, S::rail, "trust", kReadsDcb,
     "the NIC does not trust DSCP: the driver lacks qos/trust (upstream mlx5: the DSCP app entry implies it) "
     "or a tool (mlnx_qos) reset it"},
    {K::rail_dscp_map, S::rail, "dscp_map", kReadsDcb,
     "the DSCP application entry is missing: firmware DCBX or lldpad replaced the NIC's app table; use "
     "host-controlled DCBX"},
    {K::rail_ecn, S::rail, "ecn", kReadsDcb,
     "ECN is not enabled on the RoCE priority: the driver has no ECN controls (upstream mlx5) or they were "
     "reset; DOCA-OFED has them"},
    {K::rail_roce_tos, S::rail, "roce_tos", 0,
     "the RDMA-CM ToS is not set: configfs is not mounted at /sys/kernel/config or rdma_cm is not loaded"},
    {K::rail_storm_prevention, S::rail, "storm_prevention", kReadsDcb,
     "PFC storm prevention is not set: the NIC firmware is too old for the pfc-prevention-tout tunable; "
     "update the firmware"},
    {K::rail_rdma_port, S::rail, "rdma_port", 0,
     "the RDMA port is not ACTIVE: the link under it is down, mlx5_ib did not bind, or (Soft-RoCE) no rxe "
     "device was created on the interface"},
    {K::rail_roce_v2_gid, S::rail, "roce_v2_gid", 0,
     "no RoCE v2 GID for the rail address: the address is not on the rail's VLAN device (the GID table "
     "mirrors the addresses of the interface), or the VLAN is missing; check rail.N.address and rail.N.vlan"},
    {K::rail_rdma_write, S::rail, "rdma_write", 0,
     "the RDMA WRITE self-test failed or was slow: PFC/ECN differ between the NIC and the switch, an MTU "
     "mismatch, or the port pauses; see this rail's pfc, mtu and pause_storm checks"},
    {K::rail_gpudirect_write, S::rail, "gpudirect_write", 0,
     "the NIC could not read or write the GPU's memory: with dma-buf it needs the open NVIDIA kernel modules "
     "and a kernel with dma-buf support; without, nvidia-peermem loaded (gpudirect.peermem). Slow: the GPU "
     "and NIC meet at the host bridge (see this rail's affinity and gpudirect.acs)"},
    {K::rail_pause_storm, S::rail, "pause_storm", kReadsDcb, "a pause storm on the RoCE priority"},
    {K::rail_peer_write, S::rail, "peer_write", kWaitsForFarEnd,
     "the rail's RDMA traffic does not cross its leaf cleanly: a retransmission or sequence error is a lost "
     "packet on the lossless priority (the leaf port's PFC or buffers, a bad cable or optic: see the counter "
     "named); no answer is the reference down or the rail not reaching its leaf (see this rail's lldp)"},
    {K::rail_peer_bandwidth, S::rail, "peer_bandwidth", kWaitsForFarEnd,
     "the rail carries less than its link promises to a host across the leaf: a link trained down, a dirty "
     "optic, ECN marking too early on the leaf, or the reference busy; compare with the same rail of "
     "another node (railyard fabric sweep names the link)"},
    {K::rail_peer_latency, S::rail, "peer_latency", kWaitsForFarEnd,
     "a round trip through the leaf takes too long: the leaf queue of the RoCE priority is full (PFC "
     "pauses, see pause_storm), or the path crosses more than the rail's leaf"},
    {K::rail_lldp, S::rail, "lldp", kWaitsForFarEnd,
     "the rail's cable does not reach the leaf and port it must: cabling (rail i of every node to leaf i), or "
     "LLDP off on the switch port or kept from the host by the NIC's firmware agent"},
    {K::rail_lldp_pfc, S::rail, "lldp_pfc", kWaitsForFarEnd,
     "the leaf port's PFC differs from the host's: configure the port from railyard fabric leaf-config; the "
     "host is not DCBX-willing and keeps its own"},
    {K::rail_lldp_mtu, S::rail, "lldp_mtu", kWaitsForFarEnd,
     "the leaf port's MTU is below the rail's frames: raise it (railyard fabric leaf-config's mtu)"},
    {K::rail_lldp_vlan, S::rail, "lldp_vlan", kWaitsForFarEnd,
     "the leaf port does not carry the rail's VLAN: add it to the port (railyard fabric leaf-config's vlans)"},
    {K::rail_bgp, S::rail, "bgp", 0,
     "the rail's BGP session with its leaf is not Established: the leaf port has no BGP unnumbered neighbour "
     "(configure it from railyard fabric leaf-config), expects another AS for this node, or the cable reaches "
     "another port"},
    {K::rail_bgp_prefixes, S::rail, "bgp_prefixes", 0,
     "the leaf sends fewer fabric routes than the recipe expects: the other nodes are not up yet, or the leaf "
     "filters the fabric's prefixes"},
    {K::rail_route, S::rail, "route", 0,
     "from this rail's address some of the fabric leaves by another rail: the rail's table or source rule is "
     "missing (see apply's changes), so RoCE traffic would cross rails"},
    {K::rails_cross_rdma_write, S::node, "rails.cross_rdma_write", 0,
     "RDMA between rails fails while each rail works alone: routing between the rail subnets (policy routing, "
     "arp_ignore/arp_announce on shared subnets) or the spine does not carry the RoCE priority losslessly"},
    {K::rails_unit, S::node, "rails.unit", kWaitsForFarEnd,
     "a rail's cable reaches another scalable unit's leaf: jobs placed by the scheduler's topology would cross "
     "the spine on that rail, and the node's port in its own unit's leaf is empty or taken; recable it"},
    {K::tenant_vxlan, S::node, "tenant.vxlan", 0,
     "the tenant VXLAN device is missing, down or on another VNI or VTEP: see apply's changes; another "
     "network manager may hold the device"},
    {K::tenant_vtep, S::node, "tenant.vtep", 0,
     "a remote VTEP of the tenant is not flooded to or not routed: its node's VTEP /32 is not announced (no "
     "[tenant] there, or its sessions are down) or the leaves filter it"},
    {K::tenant_isolation, S::node, "tenant.isolation", 0,
     "an address of another tenant's VNI answers: the two VNIs are bridged or routed together somewhere (a "
     "VTEP in both, a leaf or gateway leaking between them)"},
    {K::nvmeof_connected, S::nvmeof, "connected", 0,
     "NVMe-oF is not live: the target is unreachable on the rail, its ACL lacks this host's NQN "
     "(allowed_hosts), the subsystem NQN is wrong, or nvme-rdma is not loaded"},
    {K::nvmeof_namespace_read, S::nvmeof, "namespace_read", 0,
     "the controller is live but no namespace is readable: the namespace is not enabled on the target or not "
     "mapped to this host's NQN"},
    {K::gpudirect_peermem, S::node, "gpudirect.peermem", 0,
     "nvidia-peermem is not loaded: GPUDirect RDMA falls back to host memory; the module must be built "
     "against the RDMA stack in the image (OFED vs inbox)"},
    {K::gpudirect_acs, S::bridge, "gpudirect.acs.", 0,
     "ACS still redirects peer-to-peer traffic at this PCIe port: the BIOS re-enables ACS at boot, or the "
     "write did not stick; disable ACS in the BIOS"},
    {K::nccl_all_reduce, S::node, "nccl.all_reduce", 0,
     "NCCL's all-reduce across the GPUs is slow or wrong: NVLinks down or fabric manager not running "
     "(gpu.N.nvlink), a GPU throttled or on a narrow link; wrong results need the GPU or NVSwitch serviced"},
    {K::apply_failed, S::apply, "apply.", 0,
     "the kernel refused the change (see the detail): the driver lacks the knob, or another network manager "
     "holds the interface"},
    {K::other, S::other, "", 0, ""},
}};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return static_cast<std::size_t>(CheckKind::other) + 1 == kKinds.size();
}
static_assert(in_enum_order(), "kKinds must list every CheckKind once, in enum order");

constexpr bool every_kind_has_a_hint() {
  for (const auto& k : kKinds)
    if (k.kind != CheckKind::other && k.hint.empty()) return false;
  return true;
}
static_assert(every_kind_has_a_hint(), "every check kind tells operators its usual cause");

std::string_view prefix_of(CheckScope s) {
  switch (s) {
    case CheckScope::gpu: return "gpu.";
    case CheckScope::rail: return "rail.";
    case CheckScope::nvmeof: return "nvmeof.";
    case CheckScope::node:
    case CheckScope::bridge:
    case CheckScope::apply:
    case CheckScope::other: return "";
  }
  return "";
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A full PCI address ("0000:1b:00.0") starting at s[i]; its length, or 0.
std::size_t pci_at(std::string_view s, std::size_t i) {
  constexpr std::string_view shape = "hhhh:hh:hh.h";
  if (s.size() - i < shape.size()) return 0;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == 'h' ? !is_hex(s[i + k]) : s[i + k] != shape[k]) return 0;
  return shape.size();
}

// Indices and PCI addresses of any name replaced by '*': PCI addresses first (they hold
// the '.' that separates a name's parts), then apply's "rail 3 (ens3f0np0)" objects, then
// every all-digit part.
std::string masked(std::string_view name) {
  std::string s;
  for (std::size_t i = 0; i < name.size();) {
    if (std::size_t n = pci_at(name, i)) {
      s += '*';
      i += n;
    } else s += name[i++];
  }
  std::string t;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i + 5;
    if (s.compare(i, 5, "rail ") != 0 || j >= s.size() || !is_digit(s[j])) {
      t += s[i++];
      continue;
    }
    while (j < s.size() && is_digit(s[j])) ++j;
    if (s.compare(j, 2, " (") == 0)
      if (std::size_t close = s.find(')', j); close != std::string::npos) j = close + 1;
    t += "rail *";
    i = j;
  }
  std::string out;
  std::size_t start = 0;
  for (;;) {
    std::size_t dot = t.find('.', start);
    std::string part = t.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    out += digits ? "*" : part;
    if (dot == std::string::npos) break;
    out += '.';
    start = dot + 1;
  }
  return out;
}

// "12" → 12; nothing for "", "012", or more than six digits, so that name() gives back
// exactly the text parse() read.
bool read_index(std::string_view s, int& out) {
  if (s.empty() || s.size() > 6 || (s.size() > 1 && s[0] == '0')) return false;
  int v = 0;
  for (char c : s) {
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

const CheckKindInfo& kind_info(CheckKind k) { return kKinds[static_cast<std::size_t>(k)]; }

CheckScope scope_of(CheckKind k) { return kind_info(k).scope; }

std::string CheckId::name() const {
  const CheckKindInfo& i = kind_info(kind);
  switch (i.scope) {
    case CheckScope::node: return std::string(i.word);
    case CheckScope::gpu:
    case CheckScope::rail:
    case CheckScope::nvmeof: return std::string(prefix_of(i.scope)) + std::to_string(index) + "." + std::string(i.word);
    case CheckScope::bridge:
    case CheckScope::apply: return std::string(i.word) + subject;
    case CheckScope::other: return subject;
  }
  return subject;
}

std::string CheckId::pattern() const {
  const CheckKindInfo& i = kind_info(kind);
  switch (i.scope) {
    case CheckScope::node: return std::string(i.word);
    case CheckScope::gpu:
    case CheckScope::rail:
    case CheckScope::nvmeof: return std::string(prefix_of(i.scope)) + "*." + std::string(i.word);
    case CheckScope::bridge: return std::string(i.word) + "*";
    case CheckScope::apply:
    case CheckScope::other: return masked(name());
  }
  return masked(name());
}

CheckId CheckId::parse(std::string_view name) {
  // "rail.3.pfc": the scope's prefix, the index and the word, each read once.
  for (CheckScope scope : {CheckScope::gpu, CheckScope::rail, CheckScope::nvmeof}) {
    std::string_view prefix = prefix_of(scope);
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = name.substr(prefix.size());
    std::size_t dot = rest.find('.');
    int index = 0;
    if (dot == std::string_view::npos || !read_index(rest.substr(0, dot), index)) break;
    std::string_view word = rest.substr(dot + 1);
    for (const CheckKindInfo& i : kKinds)
      if (i.scope == scope && i.word == word) return {i.kind, index, ""};
    break;
  }
  for (const CheckKindInfo& i : kKinds) {
    switch (i.scope) {
      case CheckScope::node:
        if (name == i.word) return node(i.kind);
        break;
      case CheckScope::bridge:
      case CheckScope::apply:
        if (name.size() > i.word.size() && name.substr(0, i.word.size()) == i.word)
          return {i.kind, -1, std::string(name.substr(i.word.size()))};
        break;
      case CheckScope::gpu:
      case CheckScope::rail:
      case CheckScope::nvmeof:
      case CheckScope::other: break;
    }
  }
  return {CheckKind::other, -1, std::string(name)};
}

}  // namespace railyard
