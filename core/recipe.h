// Recipe schema v1: one hardware SKU's image, expected hardware, fabric and join policy.
// docs/recipe.md is generated from the key table in recipe_schema.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schema.h"

namespace railyard {

inline constexpr int kRecipeSchema = 1;

enum class Distro { debian, ubuntu };
enum class Arch { amd64, arm64 };
enum class GpuVendor { nvidia, amd };
// How strictly a fabric feature is enforced by the self-test.
enum class Requirement { off, best_effort, required };
enum class Trust { dscp, pcp };
// GPU↔NIC affinity classes, best first, as `nvidia-smi topo -m` prints them.
enum class Affinity { PIX, PXB, PHB, NODE, SYS };
enum class GdrLevel { LOC, PIX, PXB, PHB, SYS };
enum class AddressingMode { per_rail_subnet, shared_subnet };
enum class NvmeTransport { rdma, tcp };
// How rails reach each other: one layer-2 segment per rail, or routed point-to-point links to
// the leaf with BGP unnumbered (docs/routing.md).
enum class RoutingMode { l2, bgp_unnumbered };

struct ImageSpec {
  Distro distro = Distro::debian;
  std::string suite;
  std::string mirror;
  // A vendor root filesystem archive to start from instead of bootstrapping; pinned by sha256.
  std::string rootfs_url;
  std::string rootfs_sha256;
  Arch arch = Arch::amd64;
  std::vector<std::string> components;
  std::string kernel;
  std::vector<std::string> packages;
  std::vector<std::string> drivers;
  std::vector<std::string> overlays;
  std::vector<std::string> cmdline;
  std::vector<std::string> drop_modules;
  // dpkg's path filters (dpkg.cfg(5) path-exclude / path-include), for every package the
  // build installs: includes win over excludes.
  std::vector<std::string> path_exclude;
  std::vector<std::string> path_include;
  // Leave dkms, the kernel headers and the compiler in the image after the DKMS builds.
  bool keep_build_tools = false;
};

struct HardwareSpec {
  int gpu_count = 0;
  GpuVendor gpu_vendor = GpuVendor::nvidia;
  std::vector<std::string> gpu_device_ids;
  int rail_count = 0;
  std::vector<std::string> rails;
  int rail_speed_mbps = 0;
  int pcie_gen = 0;
  int pcie_width = 0;
  Affinity max_affinity = Affinity::PXB;
  int nvlinks_per_gpu = 0;  // active NVLinks each GPU must have; 0: every link NVML reports
};

struct FabricSpec {
  Requirement pfc = Requirement::required;
  int pfc_priority = 3;
  Trust trust = Trust::dscp;
  int roce_dscp = 26;
  int cnp_dscp = 48;
  Requirement ecn = Requirement::best_effort;
  int mtu = 9000;
  std::optional<int> vlan;
  int pfc_storm_timeout_ms = 100;
  bool soft_roce = false;
};

// [fabric.lldp]: what every rail's LLDP neighbour, the leaf switch port it is cabled to,
// must be. Templates take {rail} (the rail index); "" leaves that field unchecked.
struct LldpSpec {
  int wait_s = 35;        // listen this long for each rail's neighbour (a switch sends every 30 s); 0: no LLDP checks
  bool required = false;  // no neighbour heard: fail, else warn
  std::string expect_system;
  std::string expect_port;
};

// [fabric.topology]: the scalable units the fleet is cabled as, when the recipe names them:
// unit name → its nodes as a host range ("gpu[001-032]"). With {unit} in fabric.lldp's
// expectations, each node expects its own unit's leaves, and a node whose rails reach
// another unit's fails `rails.unit` at first boot (docs/topology.md).
struct TopologySpec {
  std::map<std::string, std::string> units;
};

// [fabric.probe]: every rail's RDMA path through its leaf to another host, proven before
// the node joins (docs/fabric.md). References (inventory nodes with reference = true, or
// `peers` here) run `railyard-firstboot responder`; every other node writes to one on each
// rail and measures the bandwidth and latency.
struct ProbeSpec {
  // A rail whose reference never answers, or whose write fails: required fails the self-test,
  // best-effort warns, off plans no peer check.
  Requirement required = Requirement::required;
  bool responder = false;          // the image runs the responder (on its references only)
  std::vector<std::string> peers;  // per rail, a reference's address outside the inventory; "": none
  int port = 18515;                // the responder's TCP side channel, on every rail
  int bytes = 1 << 24;             // written and timed per rail
  double min_gbps = 0;             // 0: 80% of the rail's link speed (none on Soft-RoCE)
  double max_latency_us = 0;       // 0: 50 µs (none on Soft-RoCE)
  int timeout_ms = 10000;          // each rail's whole exchange, busy retries included
  int max_peers = 16;              // a responder serves this many at once
};

// [fabric.leaf]: the switch side of the fabric, for `railyard fabric leaf-config`.
struct LeafSpec {
  int pfc_watchdog_detect_ms = 200;
  int pfc_watchdog_restore_ms = 400;
  int ecn_min_kb = 150;
  int ecn_max_kb = 1500;
  int ecn_probability_pct = 100;
  int port_mtu = 0;  // 0: 9216, or the rails' largest frame when that is larger
};

struct AddressingSpec {
  AddressingMode mode = AddressingMode::per_rail_subnet;
  std::vector<std::string> subnets;
  std::string subnet;
  int table_base = 100;
};

// [routing]: in bgp-unnumbered each rail is a routed link to its leaf. The node's rail
// addresses are /32s, announced over a BGP session per rail on the rail's IPv6 link-local
// address (RFC 5549 next hops); traffic from rail i's address leaves by rail i only.
struct RoutingSpec {
  RoutingMode mode = RoutingMode::l2;
  // The node's AS number when its inventory entry has none (then every such node shares it).
  std::int64_t node_asn = 0;
  // Rail r's leaf is AS leaf_asn + r (`railyard fabric leaf-config`); 0: none rendered.
  std::int64_t leaf_asn = 0;
  // What the rails carry: the only prefixes accepted from a leaf, and what rail i's own
  // routing table sends to rail i's leaf.
  std::vector<std::string> fabric_prefixes;
  int session_wait_s = 60;  // every rail's session Established within this
  int min_prefixes = 1;     // fabric prefixes each rail's session must have received
};

// [tenant]: the node's tenant-facing network (front end, storage access; never the rails'
// RoCE traffic) as a VXLAN segment over the routed fabric, from the node's VTEP address (a
// /32 it announces over BGP on every rail). Remote VTEPs by a static flood list.
struct TenantSpec {
  int vni = 0;                     // 0: no tenant network
  std::vector<std::string> flood;  // the VNI's VTEPs (this node's own is left out)
  int mtu = 0;                     // 0: the rails' MTU less the VXLAN encapsulation (50 bytes)
  std::string isolation_probe;     // an address of another VNI this node must not reach; "": none
};

// The AS numbers a recipe or an inventory may give: 1–4294967294 but the reserved 23456
// (AS_TRANS, RFC 6793) and 65535 (RFC 7300).
std::optional<std::string> check_asn(std::int64_t asn);

struct ManagementSpec {
  std::string mac;
  std::string name;
  std::string pci;
  std::string subnet;
};

struct NcclSpec {
  GdrLevel gdr_level = GdrLevel::PXB;
  int cross_nic = 0;
  std::optional<int> ib_sl;
  std::string conf_path;
  std::string topo_file;
  std::string env_dir;
  std::map<std::string, std::string> extra;
};

struct GpuDirectSpec {
  bool peermem = true;
  bool disable_acs = false;
};

struct NvmeofTarget {
  NvmeTransport transport = NvmeTransport::rdma;
  std::string address;
  int port = 4420;
  std::string nqn;
  int rail = 0;
  bool required = true;
};

struct SelftestSpec {
  int check_timeout_ms = 10000;
  int device_wait_s = 30;
  int link_wait_s = 30;
  int storage_wait_s = 30;
  int rdma_bytes = 1 << 20;
  int rdma_min_mbps = 0;
  int pause_sample_ms = 1000;
  int pause_storm_pps = 1000;
  // The GPUs' health as NVML reports it (firstboot/gpu): off, best-effort (warn only) or
  // required. Only on recipes with NVIDIA GPUs.
  Requirement gpu_health = Requirement::required;
  int gpu_max_temp_c = 85;
  int gpu_max_ecc_uncorrected = 0;  // volatile uncorrectable ECC errors tolerated
  // XIDs that fail gpu.N.xid; any other XID in the kernel log warns.
  std::vector<int> gpu_fatal_xids = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120};
  // Per rail, an RDMA WRITE from GPU memory to GPU memory of the rail's GPU: off,
  // best-effort (warn only) or required. Only on recipes with NVIDIA GPUs.
  Requirement gpudirect = Requirement::required;
  // nccl-tests' all_reduce_perf across the node's GPUs: the bus bandwidth (GB/s) it must
  // reach; 0 does not run it.
  int nccl_allreduce_min_gbps = 0;
  std::string nccl_all_reduce_perf = "/usr/local/bin/all_reduce_perf";
  int nccl_timeout_s = 300;
};

struct JoinSpec {
  std::string report_url;
  std::string ca_file;
  std::string token_file;
  int report_retries = 3;
  std::vector<std::string> units;  // gated in the image (core/join_gate.h)
  int unit_wait_s = 60;
  std::string on_fail;
  std::string textfile_dir = "/var/lib/prometheus/node-exporter";                           // "": none written
  std::string nfd_features = "/etc/kubernetes/node-feature-discovery/features.d/railyard";  // "": none written
};

// [join.slurm]: the node is a Slurm compute node (core/slurm.h). The agent registers it
// (slurmd is a join unit), sets its features, drains it with the failing checks on a fail and
// resumes it on a pass when railyard drained it.
struct SlurmSpec {
  std::string controller;  // slurmctld's address (host or host:port); "": not a Slurm node
  std::string cluster = "cluster";
  std::string partition;  // "": not checked
  std::vector<std::string> features = {"railyard", "rails{rails}"};
  bool drain_on_fail = true;
  bool resume_on_pass = true;
  int register_wait_s = 30;
  int drain_interval_s = 600;  // verify: at most one drain per interval
};

struct Recipe {
  int schema = kRecipeSchema;
  std::string name;
  std::string description;
  ImageSpec image;
  HardwareSpec hardware;
  FabricSpec fabric;
  LldpSpec lldp;          // [fabric.lldp]
  LeafSpec leaf;          // [fabric.leaf]
  ProbeSpec probe;        // [fabric.probe]
  TopologySpec topology;  // [fabric.topology]
  AddressingSpec addressing;
  RoutingSpec routing;
  TenantSpec tenant;
  ManagementSpec management;
  NcclSpec nccl;
  GpuDirectSpec gpudirect;
  std::vector<NvmeofTarget> nvmeof;
  SelftestSpec selftest;
  JoinSpec join;
  SlurmSpec slurm;  // [join.slurm]
};

const schema::Schema<Recipe>& recipe_schema();
// The leaf ports' MTU (a frame size): [fabric.leaf] port_mtu, or by default 9216 (what leaf
// switches take) or the rails' largest frame (fabric.mtu + 18, + 4 when tagged), if larger.
int leaf_port_mtu(const Recipe& r);
// The largest Ethernet frame a rail of this recipe sends.
int rail_frame_size(const FabricSpec& f);

// A recipe, bundle, overlay or package name: a-z 0-9 - . _, starting with a-z or 0-9 (it
// becomes a file or directory name). Also what an image manifest's recipe.name must be.
std::optional<std::string> check_name(const std::string& s);
// An LLDP system name or port ID expectation ([fabric.lldp], an inventory node's lldp_*):
// a host name (net.h: hostname_rule) of up to 64 characters, {rail} its only placeholder.
std::optional<std::string> check_lldp_template(const std::string& s);
// The template for rail `rail`.
std::string expand_lldp_template(const std::string& s, int rail, const std::string& unit = "");
// The [fabric.topology] unit whose host range holds `hostname`, or "" (the units are checked
// not to overlap).
std::string unit_of(const Recipe& r, const std::string& hostname);
// Every node the units name → its unit, read once: for many lookups.
std::map<std::string, std::string> unit_index(const Recipe& r);
// Whether fabric.lldp's expectations name the node's unit ({unit}).
bool lldp_names_unit(const Recipe& r);

// Names used in files and JSON for the enums above.
std::string to_string(Requirement r);
std::string to_string(Affinity a);
std::string to_string(Trust t);
std::string to_string(GdrLevel g);
std::string to_string(Distro d);
std::string to_string(RoutingMode m);

}  // namespace railyard
