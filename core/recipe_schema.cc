// The recipe's key table: the single declaration of every key (see recipe.h).
#include <algorithm>
#include <cctype>

#include "join_gate.h"
#include "slurm.h"
#include "net.h"
#include "text.h"
#include "topology.h"
#include "recipe.h"

namespace railyard {

namespace {

template <class E>
using Names = std::vector<std::pair<std::string, E>>;

const Names<Distro> kDistros{{"debian", Distro::debian}, {"ubuntu", Distro::ubuntu}};
const Names<Arch> kArchs{{"amd64", Arch::amd64}, {"arm64", Arch::arm64}};
const Names<GpuVendor> kVendors{{"nvidia", GpuVendor::nvidia}, {"amd", GpuVendor::amd}};
const Names<Requirement> kRequirements{
    {"required", Requirement::required}, {"best-effort", Requirement::best_effort}, {"off", Requirement::off}};
const Names<Trust> kTrust{{"dscp", Trust::dscp}, {"pcp", Trust::pcp}};
const Names<Affinity> kAffinities{{"PIX", Affinity::PIX},
                                  {"PXB", Affinity::PXB},
                                  {"PHB", Affinity::PHB},
                                  {"NODE", Affinity::NODE},
                                  {"SYS", Affinity::SYS}};
const Names<GdrLevel> kGdrLevels{{"LOC", GdrLevel::LOC},
                                 {"PIX", GdrLevel::PIX},
                                 {"PXB", GdrLevel::PXB},
                                 {"PHB", GdrLevel::PHB},
                                 {"SYS", GdrLevel::SYS}};
const Names<AddressingMode> kModes{{"per-rail-subnet", AddressingMode::per_rail_subnet},
                                   {"shared-subnet", AddressingMode::shared_subnet}};
const Names<RoutingMode> kRoutingModes{{"l2", RoutingMode::l2}, {"bgp-unnumbered", RoutingMode::bgp_unnumbered}};
const Names<NvmeTransport> kTransports{{"rdma", NvmeTransport::rdma}, {"tcp", NvmeTransport::tcp}};

template <class E>
std::string name_of(const Names<E>& names, E e) {
  for (auto& [w, v] : names)
    if (v == e) return w;
  return "?";
}

std::optional<std::string> check_mirror(const std::string& s) {
  if (s == "host") return std::nullopt;
  if (s.rfind("file://", 0) == 0) return std::nullopt;
  if (check_http_url(s)) return "'" + s + "' is not \"host\" or an http(s):// or file:// URL";
  return std::nullopt;
}

std::optional<std::string> check_device_id(const std::string& s) {
  bool ok = s.size() == 6 && s[0] == '0' && s[1] == 'x';
  for (std::size_t i = 2; ok && i < s.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(s[i])) != 0;
  if (!ok) return "'" + s + "' is not a PCI device id; expected like \"0x2330\"";
  return std::nullopt;
}

std::optional<std::string> check_rail_ref(const std::string& s) {
  if (normalize_pci(s)) return std::nullopt;
  if (s.starts_with("pci-") && normalize_pci(s.substr(4)) == s.substr(4)) return std::nullopt;  // udev's ID_PATH
  if (s.empty() || s.size() > 15 || s.find_first_of("/: \t") != std::string::npos)
    return "'" + s +
           "' is neither a PCI address (0000:1b:00.0), udev's ID_PATH (pci-0000:1b:00.0) nor an interface "
           "name (≤ 15 characters, no '/', ':' or white space)";
  return std::nullopt;
}

std::optional<std::string> check_abs_path(const std::string& s) { return check_plain_path(s); }

std::optional<std::string> check_module_dir(const std::string& s) {
  if (s.empty() || s.front() == '/' || s.find("..") != std::string::npos || normalize_path(s) == ".")
    return "'" + s + "' must be a directory relative to /lib/modules/KVER/kernel, like \"sound\" or \"drivers/media\"";
  return std::nullopt;
}

// What dpkg.cfg's path-exclude and path-include take (fnmatch(3) patterns of absolute paths)
// and nothing that could end a line of dpkg's configuration or climb out of the root.
std::optional<std::string> check_dpkg_path(const std::string& s) {
  const std::string allowed = "an absolute path pattern like \"/usr/share/doc/*\" (A-Z a-z 0-9 / . _ - + * ? [ ])";
  if (s.empty() || s.front() != '/' || s.size() > 255) return "'" + escape_control(s) + "' is not " + allowed;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("/._-+*?[]").find(c) == std::string::npos)
      return "'" + escape_control(s) + "' is not " + allowed;
  for (const auto& part : split(s.substr(1), '/'))
    if (part == "." || part == ".." || part.empty())
      return "'" + s + "' is not " + allowed + ": no empty, . or .. parts";
  return std::nullopt;
}

std::optional<std::string> check_nccl_key(const std::string& k) {
  if (k.rfind("NCCL_", 0) != 0) return "not an NCCL variable; names start with NCCL_";
  for (char c : k)
    if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) && c != '_')
      return "'" + escape_control(k) + "' is not an NCCL variable name; allowed: NCCL_ then A-Z 0-9 _";
  static const char* derived[] = {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_TOPO_FILE", "NCCL_IB_TC",
                                  "NCCL_IB_GID_INDEX"};
  for (auto* d : derived)
    if (k == d)
      return std::string("railyard derives ") + d +
             " from the discovered rails and the fabric section; set hardware.rails, fabric.roce_dscp or "
             "nccl.topo_file instead";
  return std::nullopt;
}

std::optional<std::string> storm_timeout_gap(int v) {
  if (v != 0 && v < 80) return std::to_string(v) + " is out of range; allowed: 0 (disabled) or 80–8000 ms";
  return std::nullopt;
}

schema::Schema<Recipe> make_recipe_schema() {
  schema::Schema<Recipe> s;
  s.top(
       "Identity and version of the recipe. A recipe may also say `extends = \"base.toml\"` (a path relative to "
       "itself): it then starts from that recipe and overrides what it sets; tables merge key by key, arrays "
       "are replaced whole.")
      .integer("schema", &Recipe::schema, kRecipeSchema, kRecipeSchema, kRecipeSchema,
               "Recipe format version; this railyard reads version 1.")
      .string("name", &Recipe::name, "",
              "Short name of the SKU; the image goes to out/<name>/. Defaults to the file name.", check_name,
              "a-z 0-9 - . _")
      .string("description", &Recipe::description, "", "One line for humans.");

  s.section("image", &Recipe::image, "What goes into the node image.")
      .choice("distro", &ImageSpec::distro, Distro::debian, kDistros, "Distribution of the root filesystem.")
      .required_string("suite", &ImageSpec::suite, "Release code name, e.g. bookworm or noble.", check_name,
                       "a release code name")
      .string("mirror", &ImageSpec::mirror, "host",
              "Package mirror: an http(s):// or file:// URL, or \"host\" to use the build host's apt sources.",
              check_mirror, "\"host\" or a URL")
      .string(
          "rootfs_url", &ImageSpec::rootfs_url, "",
          "Start from this vendor root filesystem archive (tar in any compression) instead of bootstrapping "
          "with mmdebstrap: fetched (resumed, retried), checked against rootfs_sha256, unpacked as root. The "
          "kernel and packages it lacks are installed from its own apt sources; mirror is not used.",
          [](const std::string& v) { return check_http_url(v); }, "an http(s):// URL")
      .string(
          "rootfs_sha256", &ImageSpec::rootfs_sha256, "", "sha256 of the rootfs_url archive.",
          [](const std::string& v) { return check_hex(v, 64); }, "64 hex digits")
      .choice("arch", &ImageSpec::arch, Arch::amd64, kArchs, "Architecture of the image.")
      .strings("components", &ImageSpec::components, {"main"}, "Archive components (Ubuntu: main, universe...).",
               check_name, "names")
      .string("kernel", &ImageSpec::kernel, "",
              "Kernel package installed in the image; empty: the distro's (linux-image-amd64 or -arm64 on Debian, "
              "linux-image-generic on Ubuntu).",
              check_name, "a package name")
      .strings("packages", &ImageSpec::packages, {}, "Extra packages installed in the image.", check_name,
               "package names")
      .strings("drivers", &ImageSpec::drivers, {},
               "Driver bundles by name, installed in this order; each is drivers/<name>.toml.", check_name,
               "bundle names")
      .strings("overlays", &ImageSpec::overlays, {},
               "Overlay directories by name (overlays/<name>/), layered in order.", check_name, "overlay names")
      .strings("cmdline", &ImageSpec::cmdline, {}, "Kernel command line arguments for PXE boot.", {}, "arguments")
      .strings("drop_modules", &ImageSpec::drop_modules, {},
               "Kernel module directories (relative to /lib/modules/KVER/kernel) removed from the image.",
               check_module_dir, "relative directories")
      .strings("path_exclude", &ImageSpec::path_exclude, {},
               "Paths dpkg does not unpack from any package the build installs (dpkg.cfg path-exclude, fnmatch "
               "patterns such as \"/usr/share/doc/*\"): every byte of a stateless image is unpacked into RAM at "
               "each boot. Kept in the image's /etc/dpkg/dpkg.cfg.d/ for later installs too. Bootstrapped images "
               "only lose what matches; a rootfs_url archive keeps the files it already has.",
               check_dpkg_path, "absolute path patterns")
      .strings("path_include", &ImageSpec::path_include, {},
               "Paths unpacked although a path_exclude pattern matches them (dpkg.cfg path-include), such as "
               "\"/usr/share/doc/*/copyright\" to keep the licences.",
               check_dpkg_path, "absolute path patterns")
      .boolean("keep_build_tools", &ImageSpec::keep_build_tools, false,
               "Keep what the DKMS builds installed (dkms, the kernel's headers, the compiler) in the image. By "
               "default they are purged once the driver bundles' modules are built, with the bundles' DKMS source "
               "packages that depend on them (their built modules stay); manifest.json's build_tools says which "
               "were removed or kept and why.");

  s.section("hardware", &Recipe::hardware, "What the self-test expects to find on every node of this SKU.")
      .integer("gpu_count", &HardwareSpec::gpu_count, 0, 0, 16, "Number of GPUs every node must have.")
      .choice("gpu_vendor", &HardwareSpec::gpu_vendor, GpuVendor::nvidia, kVendors, "GPU vendor (when gpu_count > 0).")
      .strings("gpu_device_ids", &HardwareSpec::gpu_device_ids, {},
               "Accepted PCI device ids of the GPU model (e.g. \"0x2330\" for H100 SXM5); empty accepts any.",
               check_device_id, "hex ids like \"0x2330\"")
      .integer("rail_count", &HardwareSpec::rail_count, 0, 0, 32,
               "Number of rails. 0: one rail per NIC nearest a GPU (every RDMA NIC on a GPU-less node).")
      .strings("rails", &HardwareSpec::rails, {},
               "Explicit rail NICs in rail order, by PCI address, interface name, or the names udev gives by "
               "bus path (ID_NET_NAME_PATH enp27s0f0np0, ID_PATH pci-0000:1b:00.0) whatever the interface is "
               "called now; a RoCE LAG bond also by either port or function. Empty: discovered.",
               check_rail_ref, "PCI addresses, interface names or udev path names")
      .integer("rail_speed_mbps", &HardwareSpec::rail_speed_mbps, 0, 0, 1600000,
               "Minimum link speed of each rail in Mb/s (100 GbE = 100000), of every port of a bonded rail; "
               "0 does not check.")
      .integer("pcie_gen", &HardwareSpec::pcie_gen, 0, 0, 6,
               "Minimum PCIe generation of GPU and rail links; 0 does not check.")
      .integer(
          "pcie_width", &HardwareSpec::pcie_width, 0, 0, 16, "Minimum PCIe link width (lanes); 0 does not check.",
          [](int v) -> std::optional<std::string> {
            if (v == 0 || v == 1 || v == 2 || v == 4 || v == 8 || v == 16) return std::nullopt;
            return std::to_string(v) + " is not a PCIe link width; allowed: 0, 1, 2, 4, 8, 16";
          },
          "0, 1, 2, 4, 8, 16")
      .choice("max_affinity", &HardwareSpec::max_affinity, Affinity::PXB, kAffinities,
              "Worst GPU↔NIC pairing accepted (PIX best ... SYS worst, as nvidia-smi topo -m).")
      .integer("nvlinks_per_gpu", &HardwareSpec::nvlinks_per_gpu, 0, 0, 18,
               "Active NVLinks each NVIDIA GPU must have (18 on an HGX H100/H200 board); 0: every link NVML "
               "reports must be active, whatever their number.");

  s.section(
       "fabric", &Recipe::fabric,
       "How the rails are made lossless and isolated (docs/fabric.md says which kernel interface each value reaches).")
      .choice("pfc", &FabricSpec::pfc, Requirement::required, kRequirements,
              "Priority flow control: required fails the self-test when it cannot be applied; best-effort reports "
              "unsupported and goes on.")
      .integer("pfc_priority", &FabricSpec::pfc_priority, 3, 0, 7, "The lossless priority carrying RoCE traffic.")
      .choice("trust", &FabricSpec::trust, Trust::dscp, kTrust, "Which header the NIC trusts to classify traffic.")
      .integer("roce_dscp", &FabricSpec::roce_dscp, 26, 0, 63, "DSCP of RoCE data traffic (ToS = DSCP << 2 | ECN).")
      .integer("cnp_dscp", &FabricSpec::cnp_dscp, 48, 0, 63, "DSCP of congestion notification packets.")
      .choice("ecn", &FabricSpec::ecn, Requirement::best_effort, kRequirements, "ECN / DCQCN on the RoCE priority.")
      .integer("mtu", &FabricSpec::mtu, 9000, 1280, 9216, "Rail interface MTU (RoCE path MTU follows: 4096 from 4200).")
      .optional_integer("vlan", &FabricSpec::vlan, 1, 4094, "VLAN id isolating the rails; unset: untagged.")
      .integer("pfc_storm_timeout_ms", &FabricSpec::pfc_storm_timeout_ms, 100, 0, 8000,
               "Host PFC storm prevention timeout in ms; 0 disables.", storm_timeout_gap, "0, or 80–8000")
      .boolean("soft_roce", &FabricSpec::soft_roce, false, "Create Soft-RoCE (rxe) devices on the rails (labs, QEMU).");

  s.section("fabric.lldp", &Recipe::lldp,
            "The far end of every rail: the agent listens for each rail's LLDP neighbour (the leaf switch port it is "
            "cabled to) and checks who it is and what the port advertises (PFC, maximum frame size, VLANs). Rail i of "
            "every node must reach leaf i: a swapped cable halves all-reduce bandwidth without any error.")
      .integer("wait_s", &LldpSpec::wait_s, 35, 0, 300,
               "How long the agent listens on the rails, all at once, from planning on (a switch sends every 30 s by "
               "default); 0: no LLDP checks.")
      .boolean("required", &LldpSpec::required, false,
               "A rail that hears no LLDP within wait_s fails the self-test; otherwise it warns (ConnectX firmware "
               "may run its own LLDP agent and keep the frames from the host). A neighbour that differs from the "
               "expectation always fails.")
      .string("expect_system", &LldpSpec::expect_system, "",
              "The neighbour's system name, with {rail} for the rail index (\"leaf-r{rail}\") and {unit} for the "
              "node's [fabric.topology] unit (\"{unit}-leaf{rail}\"); \"\": not checked. An inventory node's "
              "lldp_system overrides it.",
              check_lldp_template, "a host name with {rail} and {unit}")
      .string("expect_port", &LldpSpec::expect_port, "",
              "The neighbour's port ID, with {rail} for the rail index; \"\": not checked. An inventory node's "
              "lldp_port overrides it (each node has its own port on the leaf).",
              check_lldp_template, "a host name with {rail} and {unit}");

  s.section("fabric.topology", &Recipe::topology,
            "The scalable units the fleet is cabled as, when the operator names them: each node of a unit reaches, "
            "on rail i, the unit's leaf i. With {unit} in fabric.lldp's expect_system or expect_port, a node "
            "expects its own unit's leaves, and one whose rails reach another unit's fails rails.unit and never "
            "joins. railyard report topology finds the units from the reports either way.")
      .string_map("units", &TopologySpec::units,
                  "Unit name → its nodes as a Slurm host range (\"su01\" = \"gpu[001-032]\"). A node is in one "
                  "unit at most. A name follows the host-name rule: it stands in leaf names ({unit}), Slurm switch "
                  "names and Kubernetes labels.",
                  [](const std::string& k) {
                    if (auto why = check_slurm_name(k)) return why;
                    return check_hostname(k);
                  });

  s.section("fabric.probe", &Recipe::probe,
            "The fabric between nodes: before a node joins, each of its rails RDMA-writes across its leaf to a "
            "reference host on the same rail, compares the bytes, and measures bandwidth, latency and the RDMA "
            "device's retransmission and drop counters. References are inventory nodes with reference = true "
            "(each node probes one of them, never itself) or the peers below.")
      .choice("required", &ProbeSpec::required, Requirement::required, kRequirements,
              "A rail whose reference never answers or whose write fails: required fails the self-test, "
              "best-effort warns, off plans no peer check. Without any reference no peer check is planned, and "
              "the plan says so.")
      .boolean("responder", &ProbeSpec::responder, false,
               "Enable railyard-probe-responder.service in the image: on a reference node it serves the probes of "
               "every rail; on any other node it exits at once.")
      .strings(
          "peers", &ProbeSpec::peers, {},
          "Per rail, in rail order, the address of a reference outside the inventory (a storage target, a "
          "dedicated host); \"\" for none. A node's inventory references come first.",
          [](const std::string& v) { return check_ipv4(v); }, "IPv4 addresses or \"\"", true)
      .integer("port", &ProbeSpec::port, 18515, 1, 65535, "The responder's TCP port on every rail's address.")
      .integer("bytes", &ProbeSpec::bytes, 1 << 24, 4096, 1 << 30,
               "Bytes each rail writes to its reference: compared, and timed for the bandwidth.")
      .number("min_gbps", &ProbeSpec::min_gbps, 0, 0, 3200,
              "The bandwidth each rail's write must reach, in Gb/s. 0: 80% of the rail's link speed on hardware "
              "NICs, none on Soft-RoCE (a software device's speed says nothing of its link).")
      .number("max_latency_us", &ProbeSpec::max_latency_us, 0, 0, 1000000,
              "The most a small signalled RDMA WRITE may take to complete (one round trip through the leaf), in "
              "µs. 0: 50 µs on hardware NICs, none on Soft-RoCE.")
      .integer("timeout_ms", &ProbeSpec::timeout_ms, 10000, 100, 600000,
               "Each rail's whole exchange with its reference, retries while it is busy included.")
      .integer("max_peers", &ProbeSpec::max_peers, 16, 1, 1024,
               "Responder: the nodes it serves at once, each with a slice of `bytes` registered at start; one "
               "more is told it is busy and retries.");

  s.section("fabric.leaf", &Recipe::leaf,
            "What each leaf switch port facing a rail must hold, written by `railyard fabric leaf-config` from the "
            "same recipe the hosts are configured from.")
      .integer("pfc_watchdog_detect_ms", &LeafSpec::pfc_watchdog_detect_ms, 200, 10, 10000,
               "PFC watchdog: a queue paused this long without draining is declared stalled (a PFC deadlock or storm) "
               "and its pauses ignored.")
      .integer("pfc_watchdog_restore_ms", &LeafSpec::pfc_watchdog_restore_ms, 400, 10, 60000,
               "PFC watchdog: how long a stalled queue stays in that state before PFC is honoured again.")
      .integer("ecn_min_kb", &LeafSpec::ecn_min_kb, 150, 1, 100000,
               "ECN (WRED) marking on the RoCE queue starts at this queue depth in KB.")
      .integer("ecn_max_kb", &LeafSpec::ecn_max_kb, 1500, 1, 100000,
               "Queue depth in KB at which every packet is marked (with ecn_probability_pct below it).")
      .integer("ecn_probability_pct", &LeafSpec::ecn_probability_pct, 100, 1, 100,
               "Marking probability at ecn_max_kb, in percent.")
      .integer("port_mtu", &LeafSpec::port_mtu, 0, 0, 16384,
               "The leaf ports' MTU as a frame size: at least the rails' largest frame (fabric.mtu + 18, + 4 when "
               "tagged). 0: 9216, or that frame when it is larger.");

  s.section("addressing", &Recipe::addressing, "Rail IP addressing. Rails never carry a default route.")
      .choice("mode", &AddressingSpec::mode, AddressingMode::per_rail_subnet, kModes,
              "One subnet per rail (preferred), or one shared subnet with source policy routing.")
      .strings(
          "subnets", &AddressingSpec::subnets, {}, "per-rail-subnet: one subnet per rail, in rail order.",
          [](const std::string& v) { return check_cidr(v); }, "CIDR subnets")
      .string(
          "subnet", &AddressingSpec::subnet, "", "shared-subnet: the subnet all rails share.",
          [](const std::string& v) { return check_cidr(v); }, "a CIDR subnet")
      .integer("table_base", &AddressingSpec::table_base, 100, 1, 250,
               "shared-subnet and routing.mode = \"bgp-unnumbered\": rail N uses routing table table_base + N.");

  s.section("routing", &Recipe::routing,
            "How the rails reach each other (docs/routing.md). Past a few racks one layer-2 segment per rail floods "
            "every node with every broadcast and needs spanning tree; routed rails keep each link to its leaf a "
            "point-to-point layer-3 hop, spread flows over every spine by ECMP, and keep failures local.")
      .choice("mode", &RoutingSpec::mode, RoutingMode::l2, kRoutingModes,
              "l2: each rail a subnet (or VLAN) shared with its leaf's other nodes ([addressing]). bgp-unnumbered: "
              "each rail a routed link to its leaf; the node's rail address is a /32 from the inventory, announced "
              "by FRR's bgpd over a session per rail on the rail's IPv6 link-local address (RFC 5549 next hops), "
              "and traffic from rail i's address leaves by rail i only (a routing table and a source rule per "
              "rail, from addressing.table_base).")
      .integer64(
          "node_asn", &RoutingSpec::node_asn, 0, 0, 4294967294,
          "bgp-unnumbered: the node's AS number when its inventory entry gives none (asn); nodes sharing it "
          "accept each other's routes (allowas-in origin). 0: every node's inventory entry must give one.",
          [](std::int64_t v) { return v == 0 ? std::nullopt : check_asn(v); }, "0, or an AS number")
      .integer64(
          "leaf_asn", &RoutingSpec::leaf_asn, 0, 0, 4294967294,
          "bgp-unnumbered: rail r's leaf is AS leaf_asn + r, for `railyard fabric leaf-config` (the node "
          "accepts any external AS); 0: no BGP in the leaf configuration.",
          [](std::int64_t v) { return v == 0 ? std::nullopt : check_asn(v); }, "0, or an AS number")
      .strings(
          "fabric_prefixes", &RoutingSpec::fabric_prefixes, {},
          "bgp-unnumbered: the prefixes the rails carry (the nodes' rail /32s and the storage targets' "
          "addresses lie in them). Only routes inside them are accepted from a leaf, never a default route; "
          "rail i's own table sends them to rail i's leaf.",
          [](const std::string& v) { return check_cidr(v); }, "CIDR prefixes")
      .integer("session_wait_s", &RoutingSpec::session_wait_s, 60, 1, 600,
               "bgp-unnumbered: how long the agent waits for every rail's BGP session to be Established (and its "
               "routes received) before it checks; a session still down then fails rail.N.bgp.")
      .integer("min_prefixes", &RoutingSpec::min_prefixes, 1, 0, 1000000,
               "bgp-unnumbered: fabric routes each rail's session must have received (rail.N.bgp_prefixes).");

  s.section("tenant", &Recipe::tenant,
            "The node's tenant network on routed rails (docs/routing.md): front-end and storage-access traffic in a "
            "VXLAN segment of its own, never the rails' RoCE traffic. VXLAN keeps tenants apart on a shared routed "
            "fabric without a VLAN stretched across it: a node reaches only its own VNI's members.")
      .integer("vni", &TenantSpec::vni, 0, 0, 16777215,
               "The VXLAN network identifier of the node's tenant; 0: no tenant network. Needs routing.mode = "
               "\"bgp-unnumbered\" and, per node, vtep and tenant_address in the inventory.")
      .strings(
          "flood", &TenantSpec::flood, {},
          "The VNI's VTEPs (every member node's inventory vtep): broadcast and unknown traffic is sent to each "
          "(a static flood list; this node's own is left out).",
          [](const std::string& v) { return check_ipv4(v); }, "IPv4 addresses")
      .integer("mtu", &TenantSpec::mtu, 0, 0, 9166,
               "MTU of the tenant device; 0: the rails' MTU less the 50 bytes of VXLAN over IPv4.")
      .string(
          "isolation_probe", &TenantSpec::isolation_probe, "",
          "An address of another VNI that this node must not reach: tenant.isolation fails if it answers an ICMP "
          "echo from the tenant address. \"\": no probe.",
          [](const std::string& v) { return check_ipv4(v); }, "an IPv4 address");

  s.section("management", &Recipe::management,
            "How the management interface is recognised; it is never a rail and never touched. Empty: the "
            "node inventory's management MAC, else the interface of the default route.")
      .string(
          "mac", &ManagementSpec::mac, "", "Match by MAC address.", [](const std::string& v) { return check_mac(v); },
          "a MAC address")
      .string("name", &ManagementSpec::name, "", "Match by interface name pattern (* and ?).")
      .string(
          "pci", &ManagementSpec::pci, "", "Match by PCI address.", [](const std::string& v) { return check_pci(v); },
          "a PCI address")
      .string(
          "subnet", &ManagementSpec::subnet, "", "The management subnet; rail subnets must not overlap it.",
          [](const std::string& v) { return check_cidr(v); }, "a CIDR subnet");

  s.section("nccl", &Recipe::nccl, "The NCCL profile written on the node (nccl.conf, topology XML, per-GPU env).")
      .choice("gdr_level", &NcclSpec::gdr_level, GdrLevel::PXB, kGdrLevels, "NCCL_NET_GDR_LEVEL.")
      .integer("cross_nic", &NcclSpec::cross_nic, 0, 0, 2, "NCCL_CROSS_NIC; 0 keeps rings rail-aligned across nodes.")
      .optional_integer("ib_sl", &NcclSpec::ib_sl, 0, 15, "NCCL_IB_SL; unset leaves NCCL's default.")
      .string("conf_path", &NcclSpec::conf_path, "/etc/nccl.conf", "Where nccl.conf is written.", check_abs_path,
              "a plain absolute path")
      .string("topo_file", &NcclSpec::topo_file, "/etc/nccl/topo.xml", "Where the NCCL topology XML is written.",
              check_abs_path, "a plain absolute path")
      .string("env_dir", &NcclSpec::env_dir, "/etc/railyard/nccl", "Directory of per-GPU env files (gpuN.env).",
              check_abs_path, "a plain absolute path")
      .string_map("extra", &NcclSpec::extra, "Further NCCL_* settings written to nccl.conf.", check_nccl_key,
                  "NCCL_* keys railyard does not derive");

  s.section("gpudirect", &Recipe::gpudirect, "GPUDirect RDMA: NICs reading and writing GPU memory directly.")
      .boolean("peermem", &GpuDirectSpec::peermem, true, "Load nvidia-peermem on nodes with NVIDIA GPUs.")
      .boolean("disable_acs", &GpuDirectSpec::disable_acs, false,
               "Disable ACS on the PCIe switch ports between each GPU and its rail NIC, so peer-to-peer "
               "traffic stays in the switch (bare metal; keep IOMMU in passthrough).");

  s.array_section("nvmeof", &Recipe::nvmeof, "NVMe-oF targets connected over the lossless fabric, one table each.")
      .choice("transport", &NvmeofTarget::transport, NvmeTransport::rdma, kTransports, "Fabric transport.")
      .required_string(
          "address", &NvmeofTarget::address, "Target IPv4 address.", [](const std::string& v) { return check_ipv4(v); },
          "an IPv4 address")
      .integer("port", &NvmeofTarget::port, 4420, 1, 65535, "Target service port (trsvcid).")
      .required_string(
          "nqn", &NvmeofTarget::nqn, "Subsystem NQN.", [](const std::string& v) { return check_nqn(v); }, "an NQN")
      .integer("rail", &NvmeofTarget::rail, 0, 0, 31, "Rail index whose interface carries the connection.")
      .boolean("required", &NvmeofTarget::required, true, "A failed connection fails the self-test.");

  s.section("selftest", &Recipe::selftest, "Self-test thresholds. Every wait is bounded: no check can hang the boot.")
      .integer("check_timeout_ms", &SelftestSpec::check_timeout_ms, 10000, 100, 600000, "Upper bound of any one check.")
      .integer("device_wait_s", &SelftestSpec::device_wait_s, 30, 0, 600,
               "How long first boot waits, before it plans, for the GPUs and rail NICs the hardware section needs to "
               "be present and initialized by udev (renamed to their final names); what is still missing then fails "
               "devices.ready, and a pass says what the last look before it was still waiting for. The recipe's "
               "kernel modules are loaded meanwhile. 0: plan with what is there.")
      .integer("link_wait_s", &SelftestSpec::link_wait_s, 30, 0, 600, "How long to wait for rail links to come up.")
      .integer("storage_wait_s", &SelftestSpec::storage_wait_s, 30, 0, 1800,
               "How long failed NVMe-oF connections are retried (every 2 s): targets may still be starting when "
               "a rack powers on at once.")
      .integer("rdma_bytes", &SelftestSpec::rdma_bytes, 1 << 20, 4096, 1 << 30,
               "Bytes written and verified per RDMA data-path test.")
      .integer("rdma_min_mbps", &SelftestSpec::rdma_min_mbps, 0, 0, 1600000,
               "Minimum RDMA WRITE throughput per rail in Mb/s; 0 does not check.")
      .integer("pause_sample_ms", &SelftestSpec::pause_sample_ms, 1000, 100, 60000,
               "Least interval between the two pause-counter samples; every rail's first sample is taken as "
               "verify starts, so the rails share it.")
      .integer("pause_storm_pps", &SelftestSpec::pause_storm_pps, 1000, 1, 100000000,
               "Pause frames per second above which a rail is in a PFC storm.")
      .choice("gpu_health", &SelftestSpec::gpu_health, Requirement::required, kRequirements,
              "The NVIDIA GPUs' health through NVML (libnvidia-ml.so.1, loaded at run time): identity, persistence "
              "mode, ECC, pending row remaps, XIDs since boot, throttling, temperature, PCIe link, NVLinks, and the "
              "GPU↔NIC pairing cross-checked with NVML's topology. best-effort: findings warn. Without NVML on the "
              "node the checks are unsupported.")
      .integer("gpu_max_temp_c", &SelftestSpec::gpu_max_temp_c, 85, 30, 120,
               "Highest GPU temperature (°C) gpu.N.temperature passes; an idle GPU above it at boot has a cooling "
               "problem.")
      .integer("gpu_max_ecc_uncorrected", &SelftestSpec::gpu_max_ecc_uncorrected, 0, 0, 1000000,
               "Volatile (since the driver loaded) uncorrectable ECC errors gpu.N.ecc tolerates.")
      .integers("gpu_fatal_xids", &SelftestSpec::gpu_fatal_xids, {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120}, 1,
                9999,
                "XIDs that fail gpu.N.xid when the kernel log has them for the GPU since boot; any other XID warns "
                "(many are an application's fault, not the GPU's).")
      .choice("gpudirect", &SelftestSpec::gpudirect, Requirement::required, kRequirements,
              "GPUDirect RDMA proven per rail: an RDMA WRITE whose source and destination are memory of the rail's "
              "NVIDIA GPU (CUDA's libcuda.so.1, loaded at run time), registered as a dma-buf where the driver "
              "exports one, else through nvidia-peermem; bytes compared. best-effort: a failure warns.")
      .integer("nccl_allreduce_min_gbps", &SelftestSpec::nccl_allreduce_min_gbps, 0, 0, 100000,
               "Bus bandwidth (GB/s, as nccl-tests reports it) that all_reduce_perf across the node's NVIDIA GPUs "
               "must reach; 0 does not run it. Without all_reduce_perf in the image the check is skipped, saying "
               "so.")
      .string("nccl_all_reduce_perf", &SelftestSpec::nccl_all_reduce_perf, "/usr/local/bin/all_reduce_perf",
              "Where nccl-tests' all_reduce_perf is in the image (built from nccl-tests; Debian does not ship it).",
              check_abs_path, "a plain absolute path")
      .integer("nccl_timeout_s", &SelftestSpec::nccl_timeout_s, 300, 10, 3600,
               "Upper bound of the all_reduce_perf run; a run still going then is killed and fails.");

  s.section("join", &Recipe::join, "What happens after the self-test.")
      .string(
          "report_url", &JoinSpec::report_url, "", "Where the report is POSTed; empty: kept locally only.",
          [](const std::string& v) { return check_http_url(v); }, "an http(s):// URL")
      .string("ca_file", &JoinSpec::ca_file, "", "CA bundle on the node for an https report URL.", check_abs_path,
              "a plain absolute path")
      .string("token_file", &JoinSpec::token_file, "", "File on the node holding a bearer token for the report URL.",
              check_abs_path, "a plain absolute path")
      .integer("report_retries", &JoinSpec::report_retries, 3, 0, 10, "Retries (with backoff) of the report POST.")
      .strings("units", &JoinSpec::units, {},
               "systemd units started when every required check passes. The build gives each a drop-in that "
               "keeps it from starting without the agent's pass (ConditionPathExists=/run/railyard/joined), "
               "whether or not its package enabled it, and fails when a unit is in no package or overlay of the "
               "image.",
               check_join_unit_name, "systemd unit names (letters, digits, \":-_.\\@\", a unit type suffix)")
      .integer("unit_wait_s", &JoinSpec::unit_wait_s, 60, 1, 3600,
               "How long the agent waits, after a pass, for every join unit to become active (one that fails is "
               "started again every 5 s meanwhile); one that is not active by then (or that was skipped) fails the "
               "join.")
      .string("on_fail", &JoinSpec::on_fail, "",
              "Command run through /bin/sh -c when the self-test fails, with RAILYARD_FAILED_CHECKS (the failing "
              "checks, comma-separated), RAILYARD_DRAIN_REASON (\"railyard: \" and the first of them), "
              "RAILYARD_NODE and RAILYARD_REPORT in its environment.")
      .string(
          "textfile_dir", &JoinSpec::textfile_dir, "/var/lib/prometheus/node-exporter",
          "Where the node_exporter textfile collector reads (Debian's prometheus-node-exporter: "
          "/var/lib/prometheus/node-exporter); railyard.prom is written there. Empty: none.",
          [](const std::string& v) { return v.empty() ? std::nullopt : check_abs_path(v); },
          "a plain absolute path, or "
          "")
      .string(
          "nfd_features", &JoinSpec::nfd_features, "/etc/kubernetes/node-feature-discovery/features.d/railyard",
          "node-feature-discovery's local feature file for this node (the result, the rails, their RDMA "
          "devices). Empty: none.",
          [](const std::string& v) { return v.empty() ? std::nullopt : check_abs_path(v); },
          "a plain absolute path, or "
          "");

  s.section("join.slurm", &Recipe::slurm,
            "The node is a Slurm compute node: slurmd (a join unit) runs configless from the controller, the agent "
            "sets the node's features after a pass, drains the node with the failing checks after a fail, and "
            "resumes it after a pass when railyard drained it. The cluster's munge key is never in the image: "
            "`railyard pxe --munge-key` delivers it (docs/join.md).")
      .string(
          "controller", &SlurmSpec::controller, "",
          "slurmctld's address, host or host:port (6817 by default); \"\": not a Slurm node.",
          [](const std::string& v) { return v.empty() ? std::nullopt : check_slurm_controller(v); },
          "a host name or IPv4 address, with :port or without")
      .string("cluster", &SlurmSpec::cluster, "cluster", "The cluster's ClusterName.", check_slurm_name,
              "letters, digits, '_', '-', '.'")
      .string(
          "partition", &SlurmSpec::partition, "",
          "A partition the node must be in once registered (a join that finds it elsewhere fails); \"\": not "
          "checked.",
          [](const std::string& v) { return v.empty() ? std::nullopt : check_slurm_name(v); },
          "letters, digits, '_', '-', '.'")
      .strings("features", &SlurmSpec::features, {"railyard", "rails{rails}"},
               "The node's features (AvailableFeatures and ActiveFeatures), set after a pass: {rails} and {gpus} "
               "are the counts the self-test found, \"{rdma}\" alone one feature per rail RDMA device. Empty: the "
               "controller's are kept.",
               check_slurm_feature, "letters, digits, '_', '-', '.', with {rails}, {gpus}, or \"{rdma}\"")
      .boolean("drain_on_fail", &SlurmSpec::drain_on_fail, true,
               "A failing self-test (at first boot or in `railyard-firstboot verify`) drains the node with the "
               "reason \"railyard: \" and the first failing checks.")
      .boolean("resume_on_pass", &SlurmSpec::resume_on_pass, true,
               "A passing first boot resumes the node when railyard drained it (its reason starts with "
               "\"railyard:\"); a drain anyone else made stays.")
      .integer("register_wait_s", &SlurmSpec::register_wait_s, 30, 1, 600,
               "How long the agent waits, after slurmd is active, for the controller to see the node respond "
               "(longer fails the join); on a fail, how long it keeps retrying the drain while the controller does "
               "not answer.")
      .integer("drain_interval_s", &SlurmSpec::drain_interval_s, 600, 0, 86400,
               "`railyard-firstboot verify` drains a node whose fabric regressed at most once per interval.");
  return s;
}

}  // namespace

// An LLDP system name or port ID expectation: the host-name rule, with {rail} and {unit} as
// the only placeholders. Both reach places a host name reaches: the system name names the leaf's files
// (leaf-r0.frr.conf), the port a `neighbor` line of its FRR configuration, where '!' or '#'
// would start a comment and a space another word.
std::optional<std::string> check_lldp_template(const std::string& v) {
  const std::string shown = "'" + escape_control(v) + "'";
  std::string rest = v;
  for (const char* p : {"{rail}", "{unit}"})
    for (auto at = rest.find(p); at != std::string::npos; at = rest.find(p)) rest.erase(at, 6);
  if (rest.find_first_of("{}") != std::string::npos) return shown + ": the only placeholders are {rail} and {unit}";
  if (v.empty()) return std::nullopt;  // not checked
  if (v.size() > 64) return shown + " is longer than 64 characters, a host name's limit";
  // {rail} becomes digits, which the rule allows anywhere in a label; {unit} a Slurm name,
  // checked as the units are.
  if (auto why = hostname_rule(expand_lldp_template(v, 0, "u")))
    return shown + " " + *why + " (the host-name rule, with {rail} for the rail index and {unit} for the unit)";
  return std::nullopt;
}

int rail_frame_size(const FabricSpec& f) { return f.mtu + 18 + (f.vlan ? 4 : 0); }

int leaf_port_mtu(const Recipe& r) {
  return r.leaf.port_mtu > 0 ? r.leaf.port_mtu : std::max(9216, rail_frame_size(r.fabric));
}

std::string expand_lldp_template(const std::string& s, int rail, const std::string& unit) {
  std::string out = s;
  for (auto at = out.find("{rail}"); at != std::string::npos; at = out.find("{rail}", at))
    out.replace(at, 6, std::to_string(rail));
  for (auto at = out.find("{unit}"); at != std::string::npos; at = out.find("{unit}", at + unit.size()))
    out.replace(at, 6, unit);
  return out;
}

std::string unit_of(const Recipe& r, const std::string& hostname) {
  for (const auto& [name, range] : r.topology.units) {
    std::string why;
    if (auto nodes = expand_hostlist(range, why);
        nodes && std::find(nodes->begin(), nodes->end(), hostname) != nodes->end())
      return name;
  }
  return "";
}

std::map<std::string, std::string> unit_index(const Recipe& r) {
  std::map<std::string, std::string> out;
  for (const auto& [name, range] : r.topology.units) {
    std::string why;
    if (auto nodes = expand_hostlist(range, why))
      for (auto& n : *nodes) out.emplace(std::move(n), name);
  }
  return out;
}

bool lldp_names_unit(const Recipe& r) {
  return r.lldp.expect_system.find("{unit}") != std::string::npos ||
         r.lldp.expect_port.find("{unit}") != std::string::npos;
}

std::optional<std::string> check_name(const std::string& s) {
  // Names become file and directory names (out/<name>/, overlays/<name>/): "." and ".." must not.
  if (s.empty()) return "an empty name; allowed: a-z 0-9 - . _, starting with a-z or 0-9";
  if (s[0] == '.' || s[0] == '-' || s[0] == '_')
    return "'" + s + "' starts with '" + std::string(1, s[0]) +
           "'; a name starts with a-z or 0-9 (allowed: a-z 0-9 - . _)";
  if (s.size() > 128) return "'" + s.substr(0, 20) + "…' is longer than 128 characters";
  for (char c : s)
    if (!std::islower(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) && c != '-' &&
        c != '.' && c != '_')
      return "'" + escape_control(s) + "' contains '" + escape_control(std::string(1, c)) + "'; allowed: a-z 0-9 - . _";
  return std::nullopt;
}

const schema::Schema<Recipe>& recipe_schema() {
  static const schema::Schema<Recipe> s = make_recipe_schema();
  return s;
}

std::string to_string(Requirement r) { return name_of(kRequirements, r); }
std::string to_string(Affinity a) { return name_of(kAffinities, a); }
std::string to_string(Trust t) { return name_of(kTrust, t); }
std::string to_string(GdrLevel g) { return name_of(kGdrLevels, g); }
std::string to_string(Distro d) { return name_of(kDistros, d); }
std::string to_string(RoutingMode m) { return name_of(kRoutingModes, m); }

std::optional<std::string> check_asn(std::int64_t v) {
  if (v < 1 || v > 4294967294) return std::to_string(v) + " is not an AS number (1–4294967294)";
  if (v == 23456) return "23456 is AS_TRANS (RFC 6793), reserved for 2-byte speakers; choose another AS number";
  if (v == 65535) return "65535 is reserved (RFC 7300); choose another AS number";
  return std::nullopt;
}

}  // namespace railyard
