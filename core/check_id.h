// The identity of a self-test check: a kind and the GPU, rail, NVMe-oF connection, PCIe
// bridge or applied object it is about. Code passes and switches on this type; the
// dotted name (`rail.3.pfc`) is only how people and the report's JSON see it, rendered by
// name() and read back by parse(). No other code takes a check name apart.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace railyard {

// What a check is about beside its kind.
enum class CheckScope {
  node,    // gpu.count, devices.ready
  gpu,     // gpu.N.pcie_link
  rail,    // rail.N.pfc
  nvmeof,  // nvmeof.N.connected
  bridge,  // gpudirect.acs.0000:17:01.0
  apply,   // apply.<object>: a change the kernel refused
  other,   // a name this railyard does not know (a newer agent's report)
};

enum class CheckKind {
  devices_ready,  // first boot's wait for the devices the recipe needs
  gpu_count,
  gpu_model,
  gpu_pcie_link,
  gpu_nvml,         // NVML has the GPU: its name and UUID (NVML through dlopen, firstboot/gpu)
  gpu_persistence,  // persistence mode on
  gpu_ecc,          // ECC on, volatile uncorrectable errors within the recipe's bound
  gpu_row_remap,    // no row remap or page retirement pending, no remap failure
  gpu_xid,          // no XID error in the kernel log since boot (fatal ones fail)
  gpu_throttle,     // no hardware slowdown (thermal, power brake)
  gpu_temperature,  // within the recipe's bound
  gpu_nvml_pcie,    // NVML's PCIe link: its width at the maximum
  gpu_nvlink,       // every NVLink active (and as many as the recipe says)
  rails_count,
  rail_affinity,
  rail_gpu_topology,  // NVML's view of the rail GPU's place agrees with railyard's affinity
  rail_pcie_link,
  rail_link,
  rail_speed,
  rail_mtu,
  rail_vlan,
  rail_address,
  rail_no_default_route,
  rail_pfc,
  rail_trust,
  rail_dscp_map,
  rail_ecn,
  rail_roce_tos,
  rail_storm_prevention,
  rail_rdma_port,
  rail_roce_v2_gid,
  rail_rdma_write,
  rail_gpudirect_write,  // an RDMA WRITE from the rail GPU's memory to its memory (CUDA through dlopen)
  rail_pause_storm,
  rail_peer_write,      // an RDMA WRITE across the leaf to the rail's reference, bytes compared, counters clean
  rail_peer_bandwidth,  // that write's throughput against [fabric.probe] min_gbps
  rail_peer_latency,    // a small signalled WRITE's completion time against max_latency_us
  rail_lldp,            // the rail's LLDP neighbour: who the cable reaches
  rail_lldp_pfc,        // the neighbour's 802.1Qaz PFC configuration against the rail's
  rail_lldp_mtu,        // the neighbour's 802.3 maximum frame size against the rail's MTU
  rail_lldp_vlan,       // the neighbour's 802.1 VLAN TLVs against the rail's VLAN
  rail_bgp,             // routed rails: the rail's BGP session with its leaf Established
  rail_bgp_prefixes,    // routed rails: fabric routes received on the rail's session
  rail_route,           // routed rails: from the rail's address, the fabric leaves by this rail only
  rails_cross_rdma_write,
  rails_unit,        // [fabric.topology]: every rail reaches the node's unit's leaf for that rail
  tenant_vxlan,      // the tenant VXLAN device up with its VNI and VTEP
  tenant_vtep,       // every remote VTEP of the flood list in the device's forwarding table and routed
  tenant_isolation,  // an address of another VNI does not answer
  nvmeof_connected,
  nvmeof_namespace_read,
  gpudirect_peermem,
  gpudirect_acs,
  nccl_all_reduce,  // nccl-tests' all_reduce_perf across the node's GPUs: its bus bandwidth
  apply_failed,
  other,
};

inline constexpr std::size_t kCheckKinds = static_cast<std::size_t>(CheckKind::other) + 1;

// What a kind's check reads and when it runs, beside its name.
enum CheckTrait : unsigned {
  kReadsDcb = 1u << 0,        // answered from the NIC's DCB, which a lab stand-in may emulate
  kWaitsForFarEnd = 1u << 1,  // may wait for the rail's far end to speak: evaluated after the rest
  kReadsNvml = 1u << 2,       // read through NVML, which a test double may stand in for
};

// Everything known about a kind, in its one row of check_id.cc. A new kind is a row there,
// its place in the plan (planner.cc) and its evaluator (firstboot/verify/verify.cc);
// a kind missing from either table fails to compile.
struct CheckKindInfo {
  CheckKind kind;
  CheckScope scope;
  std::string_view word;  // node scope: the whole name; gpu, rail, nvmeof: after the index
  unsigned traits = 0;    // CheckTrait bits
  std::string_view hint;  // the usual cause of a failure, in one line an operator can act on
};

const CheckKindInfo& kind_info(CheckKind k);
CheckScope scope_of(CheckKind k);
inline bool has_trait(CheckKind k, CheckTrait t) { return (kind_info(k).traits & t) != 0; }

struct CheckId {
  CheckKind kind = CheckKind::other;
  int index = -1;       // the GPU, rail or NVMe-oF connection; -1 for other scopes
  std::string subject;  // the bridge's PCI address, apply's object, or an unknown name

  static CheckId node(CheckKind k) { return {k, -1, ""}; }
  static CheckId gpu(CheckKind k, int gpu) { return {k, gpu, ""}; }
  static CheckId rail(CheckKind k, int rail) { return {k, rail, ""}; }
  static CheckId nvmeof(CheckKind k, int connection) { return {k, connection, ""}; }
  static CheckId acs(std::string bridge) { return {CheckKind::gpudirect_acs, -1, std::move(bridge)}; }
  static CheckId apply(std::string object) { return {CheckKind::apply_failed, -1, std::move(object)}; }

  CheckScope scope() const { return scope_of(kind); }
  // "rail.3.pfc": what the report, the console and the textfile say.
  std::string name() const;
  // "rail.*.pfc": what the fleet views group by. Indices and PCI addresses become '*',
  // also inside apply's objects ("apply.rail *: MTU") and unknown names.
  std::string pattern() const;
  // Any name: a known one gives its kind, anything else kind `other` keeping the name.
  static CheckId parse(std::string_view name);

  friend bool operator==(const CheckId&, const CheckId&) = default;
};

}  // namespace railyard
