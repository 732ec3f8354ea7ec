// The plan: everything first boot will do to a node, as data. The same value drives
// apply and verify, is printed by --dry-run and diffed in golden tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check_id.h"
#include "inventory.h"
#include "node_inventory.h"
#include "rails.h"
#include "recipe.h"

namespace railyard {

struct Sysctl {
  std::string path;  // under /proc/sys, e.g. "net/ipv4/conf/ens1f0np0.200/arp_ignore"
  std::string value;
};

struct RailPlan {
  int index = 0;
  std::string ifname;  // the physical interface, or a RoCE LAG's bond
  std::string nic_pci;
  std::optional<std::string> nic_model;  // udev's name for the NIC ("MT2910 Family [ConnectX-7]")
  // A RoCE LAG: the bond's ports. The bond carries the MTU, VLAN and address; DCB, trust,
  // ECN, storm prevention and pause counters live on each port (port_views()).
  std::vector<std::string> bond_ports;
  std::string bond;              // in a port view only: the bond `ifname` is a port of
  std::string rdma_device;       // "" until a Soft-RoCE device is created: see soft_roce_device
  std::string soft_roce_device;  // rxe device to create on ifname ("" when not Soft-RoCE)
  int rdma_port = 1;
  std::vector<std::string> gpu_pcis;
  std::optional<Affinity> affinity;
  std::optional<int> vlan;
  std::string netdev;  // carries the address: ifname, or ifname.VLAN
  int mtu = 0;
  int roce_path_mtu = 0;               // 256..4096
  std::optional<std::string> address;  // "198.18.0.11/24"; none without node identity
  // Addresses the rail's netdev carries beside its own: only the lab's storage target, a
  // reference whose one storage NIC sits on every rail's segment (target_plan.h).
  std::vector<std::string> extra_addresses;
  std::optional<int> table;  // shared subnet: policy routing table
  std::vector<Sysctl> sysctls;
  int pfc_priority = -1;              // the lossless priority; -1 when PFC is off
  int pfc_enable = 0;                 // bitmap of lossless priorities
  std::optional<Trust> trust;         // what the NIC classifies by; none when PFC is off
  int ecn_priority = -1;              // priority whose ECN (DCQCN) is enabled; -1: off
  int cnp_dscp = -1;                  // DSCP of the congestion notifications it sends; -1: ECN off
  int roce_dscp = 0;                  // RoCE traffic's DSCP: its entry is the one dscp_map checks
  std::vector<int> dscp_to_priority;  // 64 entries
  int roce_tos = 0;
  int storm_timeout_ms = 0;
  std::optional<int> roce_v2_gid_index;  // known once the address is on the interface
  // Who the rail's LLDP neighbour must be ([fabric.lldp], the node's overrides); "": any.
  std::string lldp_system;
  std::string lldp_port;
  // Routed rails: addresses whose route, looked up from the rail's address, must leave by
  // this rail (each fabric prefix's first address, the rail's NVMe-oF targets).
  std::vector<std::string> route_probes;
  // [fabric.probe]: the reference this rail writes to across its leaf; "": none.
  std::string probe_peer;
};

// Routed rails ([routing] bgp-unnumbered): what bgpd is configured with (core/frr.h) and
// what verify expects of its sessions.
struct BgpPlan {
  std::int64_t asn = 0;
  bool shared_asn = false;  // the recipe's node_asn: routes other nodes of this AS originated are accepted
  std::string router_id;    // rail 0's address
  std::vector<std::string> fabric_prefixes;
  int session_wait_s = 60;
  int min_prefixes = 1;
};

// The tenant network ([tenant]): a VXLAN device from the node's VTEP, the tenant address on it.
struct TenantPlan {
  int vni = 0;
  std::string vxlan;    // the device, "vxlan<VNI>"
  std::string vtep;     // this node's VTEP address, on the loopback as a /32 (announced by bgpd)
  std::string address;  // the tenant address with its prefix, on the VXLAN device
  int mtu = 0;
  std::vector<std::string> flood;  // remote VTEPs, this node's own left out
  std::string isolation_probe;     // "": no probe
};

struct NvmeofConnection {
  NvmeTransport transport = NvmeTransport::rdma;
  std::string address;
  int port = 4420;
  std::string nqn;
  int rail = 0;
  std::string host_iface;   // the rail's netdev
  std::string host_traddr;  // the rail's address, when known
  bool required = true;
};

struct PlannedFile {
  std::string path;
  int mode = 0644;
  std::string content;
};

struct PlannedCheck {
  CheckId id;
  std::string expected;
  bool required = true;
};

struct Plan {
  std::string recipe;
  // What verify compares the node with, beside the rails: the recipe's expected hardware
  // and self-test bounds as planned. Verify reads these, never the recipe.
  HardwareSpec hardware;
  SelftestSpec selftest;
  LldpSpec lldp;                   // how long to listen for the rails' neighbours, and whether silence fails
  ProbeSpec probe;                 // the peer checks' bounds and port ([fabric.probe])
  std::string node;                // host name; "" without node identity
  std::string unit;                // its [fabric.topology] unit; "" when the recipe names none for it
  std::vector<std::string> units;  // every unit the recipe names: whose leaf a stray cable reaches
  std::string management;          // interface never touched
  std::vector<RailPlan> rails;
  std::vector<std::string> gpus;  // PCI addresses in bus order: gpu.N checks refer to these
  std::vector<std::string> non_rail_nics;
  std::vector<std::string> modules;
  bool peermem = false;
  std::vector<std::string> acs_disable;  // bridge addresses
  std::vector<NvmeofConnection> nvmeof;
  std::optional<BgpPlan> bgp;        // routed rails; none on layer-2 rails
  std::optional<TenantPlan> tenant;  // none without [tenant] or the node's identity
  std::vector<PlannedFile> files;
  std::vector<PlannedCheck> checks;
  std::vector<std::string> notes;     // what the plan chose to leave out, and why
  std::vector<std::string> warnings;  // e.g. affinity worse than allowed (fails the self-test)
  std::vector<std::string> problems;  // the hardware cannot satisfy the recipe: nothing is applied
  bool ok() const { return problems.empty(); }
};

// Pure: the same inventory, recipe and node give the same plan, byte for byte.
Plan make_plan(const Inventory& inv, const Recipe& recipe, const std::optional<NodeEntry>& node);

// The kernel modules a plan of `recipe` loads whatever the hardware, in the plan's order
// (the plan adds nvidia_peermem where it finds NVIDIA GPUs): first boot loads these while it
// waits for its devices.
std::vector<std::string> recipe_modules(const Recipe& recipe);

// Where an image lists recipe_modules() for systemd-modules-load, and that file's text: a
// node loads them at early boot, beside udev's coldplug, and first boot finds them loaded
// instead of loading them itself while it waits for its devices.
inline constexpr const char* kModulesLoadPath = "/etc/modules-load.d/railyard.conf";
std::string modules_load_conf(const Recipe& recipe);

// The modules a lab storage target serving `recipe` loads: its rails' (recipe_modules()
// without the initiator's), nvmet's, and null_blk for the exported device. The target's
// plan loads them; railyard qemu also names them on the target's kernel command line, so
// that they load at early boot.
std::vector<std::string> target_modules(const Recipe& recipe);

// The plan as it stands once applied, seen on `now` (the node rediscovered after apply):
// what only apply could make known, the rails' RoCE v2 GID indices (their Soft-RoCE
// devices and VLAN addresses did not exist before), filled in and the files rendered
// again from them. Every run of the agent thus writes the same files.
Plan settled_plan(const Plan& applied, const Inventory& now, const Recipe& recipe);

// The rail as each physical port it runs on sees it: the rail itself, or one copy per bond
// port with `ifname` the port and `bond` the bond. What a NIC keeps per port (PFC, the APP
// table, trust, ECN, the storm tunable, pause counters) is applied and verified on these.
std::vector<RailPlan> port_views(const RailPlan& rail);

// DSCP → priority, 64 entries: the conventional DSCP >> 3, with the RoCE DSCP on the lossless
// priority. The hosts' APP table and the leaves' classification (leaf_config.h) alike.
std::vector<int> dscp_to_priority(const FabricSpec& f);

// The largest Ethernet frame the rail sends: its MTU, the header and FCS (18 bytes), and the
// 802.1Q tag when tagged. What the leaf's port (its LLDP maximum frame size) must carry.
int rail_frame_size(const RailPlan& rail);

// RoCE path MTU for an interface MTU: the largest of 256..4096 that fits with headers.
int roce_path_mtu(int mtu);
// ToS byte of RoCE traffic: DSCP << 2, with ECT(0) when ECN is in use.
int roce_tos(const FabricSpec& f);

nlohmann::ordered_json to_json(const Plan& plan);
std::string to_text(const Plan& plan);

}  // namespace railyard
