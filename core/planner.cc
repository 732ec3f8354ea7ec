// Inventory + recipe + node identity → Plan. Pure: no I/O, deterministic.
#include <algorithm>

#include "affinity.h"
#include "frr.h"
#include "nccl.h"
#include "net.h"
#include "plan.h"
#include "text.h"

namespace railyard {

std::vector<RailPlan> port_views(const RailPlan& rail) {
  if (rail.bond_ports.empty()) return {rail};
  std::vector<RailPlan> out;
  for (const auto& port : rail.bond_ports) {
    RailPlan view = rail;
    view.bond = rail.ifname;
    view.ifname = port;
    view.bond_ports.clear();
    out.push_back(std::move(view));
  }
  return out;
}

std::vector<int> dscp_to_priority(const FabricSpec& f) {
  std::vector<int> map(64);
  for (int d = 0; d < 64; ++d) map[static_cast<std::size_t>(d)] = d >> 3;
  map[static_cast<std::size_t>(f.roce_dscp)] = f.pfc_priority;
  return map;
}

int rail_frame_size(const RailPlan& rail) {
  FabricSpec f;
  f.mtu = rail.mtu;
  f.vlan = rail.vlan;
  return rail_frame_size(f);
}

int roce_path_mtu(int mtu) {
  // The kernel's rule for RoCE ports (iboe_get_mtu, include/rdma/ib_addr.h, which mlx5
  // follows): the largest IB MTU that fits once 96 bytes of headers are taken off the
  // interface MTU, the worst case of GRH 40, UDP 8, BTH 12, XRC extension 4, AtomicETH 28
  // and ICRC 4.
  constexpr int kRoceHeaders = 40 + 8 + 12 + 4 + 28 + 4;
  for (int p = 4096; p >= 256; p /= 2)
    if (p + kRoceHeaders <= mtu) return p;
  return 256;
}

int roce_tos(const FabricSpec& f) { return (f.roce_dscp << 2) | (f.ecn == Requirement::off ? 0 : 2); }

namespace {

constexpr std::size_t kIfnameMax = 15;  // IFNAMSIZ - 1

std::string vlan_netdev(const std::string& ifname, int vlan, int rail) {
  std::string name = ifname + "." + std::to_string(vlan);
  if (name.size() <= kIfnameMax) return name;
  return "rail" + std::to_string(rail) + "." + std::to_string(vlan);
}

std::optional<int> subnet_prefix(const Recipe& r, int rail) {
  const auto& a = r.addressing;
  std::string text = a.mode == AddressingMode::shared_subnet
                         ? a.subnet
                         : (rail < static_cast<int>(a.subnets.size()) ? a.subnets[static_cast<std::size_t>(rail)] : "");
  if (auto c = parse_cidr(text)) return c->prefix;
  return std::nullopt;
}

std::string requirement_suffix(Requirement r) { return r == Requirement::required ? "" : " (best-effort)"; }

class Planner {
 public:
  Planner(const Inventory& inv, const Recipe& r, const std::optional<NodeEntry>& node)
      : inv_(inv), r_(r), node_(node) {}

  Plan run() {
    plan_.recipe = r_.name;
    plan_.hardware = r_.hardware;
    plan_.selftest = r_.selftest;
    plan_.lldp = r_.lldp;
    plan_.probe = r_.probe;
    plan_.node = node_ ? node_->hostname : "";
    if (const Nic* m = inv_.management()) plan_.management = m->ifname;
    else plan_.notes.push_back("no management interface matched: NCCL_SOCKET_IFNAME is left out");
    if (!node_) plan_.notes.push_back("no node identity: rail addresses are left out of the plan");
    // The node's scalable unit ([fabric.topology]), which {unit} in fabric.lldp stands for.
    if (node_) plan_.unit = unit_of(r_, node_->hostname);
    for (const auto& [name, range] : r_.topology.units) plan_.units.push_back(name);
    if (lldp_names_unit(r_) && plan_.unit.empty())
      plan_.problems.push_back(node_ ? "fabric.lldp expects the node's unit's leaves, but " + node_->hostname +
                                           " is in no [fabric.topology] unit"
                                     : "fabric.lldp expects the node's unit's leaves: without a node identity its "
                                       "unit is unknown");

    RailMap map = map_rails(inv_, r_.hardware, r_.fabric.soft_roce);
    plan_.problems.insert(plan_.problems.end(), map.problems.begin(), map.problems.end());
    plan_.warnings.insert(plan_.warnings.end(), map.warnings.begin(), map.warnings.end());
    if (!plan_.ok()) return plan_;
    for (const auto& t : r_.nvmeof)
      if (t.rail >= static_cast<int>(map.rails.size()))
        plan_.problems.push_back("nvmeof target " + t.nqn + " is on rail " + std::to_string(t.rail) +
                                 "; the node has " + std::to_string(map.rails.size()) + " rails");
    if (!plan_.ok()) return plan_;
    for (const auto& g : inv_.gpus) plan_.gpus.push_back(g.pci.bdf);
    for (std::size_t n : map.non_rail) plan_.non_rail_nics.push_back(inv_.nics[n].ifname);
    for (const auto& rail : map.rails) plan_.rails.push_back(rail_plan(rail));
    modules();
    gpudirect(map);
    nvmeof();
    bgp();
    tenant();
    if (!plan_.ok()) return plan_;
    checks();
    plan_.files = nccl_files(inv_, r_, plan_);
    for (auto& f : frr_node_files(plan_)) plan_.files.push_back(std::move(f));
    return plan_;
  }

 private:
  bool routed() const { return r_.routing.mode == RoutingMode::bgp_unnumbered; }

  // Routed rails need the node's identity (its /32s and its AS) before bgpd can be configured.
  void bgp() {
    if (!routed()) return;
    if (!node_) {
      plan_.notes.push_back("no node identity: BGP is not configured on the routed rails");
      return;
    }
    BgpPlan b;
    b.asn = node_asn(*node_, r_);
    b.shared_asn = node_->asn == 0;
    b.fabric_prefixes = r_.routing.fabric_prefixes;
    b.session_wait_s = r_.routing.session_wait_s;
    b.min_prefixes = r_.routing.min_prefixes;
    for (const auto& rail : plan_.rails)
      if (rail.address && b.router_id.empty()) b.router_id = rail.address->substr(0, rail.address->find('/'));
    if (b.asn == 0)
      plan_.problems.push_back("routed rails need an AS number: the node's asn or the recipe's routing.node_asn");
    if (b.router_id.empty())
      plan_.problems.push_back("routed rails need the node's rail addresses: its identity gives none");
    plan_.bgp = std::move(b);
  }

  // The tenant network rides the routed fabric from the node's VTEP.
  void tenant() {
    const TenantSpec& t = r_.tenant;
    if (t.vni == 0 || !plan_.bgp) return;
    if (node_->vtep.empty() || node_->tenant_address.empty()) {
      plan_.problems.push_back("tenant network " + std::to_string(t.vni) + " needs the node's vtep and tenant_address");
      return;
    }
    TenantPlan p;
    p.vni = t.vni;
    p.vxlan = "vxlan" + std::to_string(t.vni);
    p.vtep = node_->vtep;
    p.address = node_->tenant_address;
    p.mtu = t.mtu > 0 ? t.mtu : r_.fabric.mtu - 50;
    for (const auto& v : t.flood)
      if (v != p.vtep && std::find(p.flood.begin(), p.flood.end(), v) == p.flood.end()) p.flood.push_back(v);
    p.isolation_probe = t.isolation_probe;
    plan_.tenant = std::move(p);
  }

  RailPlan rail_plan(const Rail& rail) {
    const Nic& nic = inv_.nics[rail.nic];
    const FabricSpec& f = r_.fabric;
    RailPlan p;
    p.index = rail.index;
    p.ifname = nic.ifname;
    p.nic_pci = nic.pci.bdf;
    p.nic_model = nic.pci.model;
    for (const auto& port : nic.bond_ports) p.bond_ports.push_back(port.ifname);
    p.rdma_port = nic.rdma_port;
    if (nic.rdma_device) p.rdma_device = *nic.rdma_device;
    else if (f.soft_roce) p.soft_roce_device = p.rdma_device = "rxe" + std::to_string(rail.index);
    for (std::size_t g : rail.gpus) p.gpu_pcis.push_back(inv_.gpus[g].pci.bdf);
    p.affinity = rail.affinity;
    p.vlan = f.vlan;
    p.netdev = f.vlan ? vlan_netdev(nic.ifname, *f.vlan, rail.index) : nic.ifname;
    p.mtu = f.mtu;
    p.roce_path_mtu = roce_path_mtu(f.mtu);
    const std::string& system = node_ && !node_->lldp_system.empty() ? node_->lldp_system : r_.lldp.expect_system;
    const std::string& port = node_ && !node_->lldp_port.empty() ? node_->lldp_port : r_.lldp.expect_port;
    p.lldp_system = expand_lldp_template(system, rail.index, plan_.unit);
    p.lldp_port = expand_lldp_template(port, rail.index, plan_.unit);
    if (node_) {
      auto i = static_cast<std::size_t>(rail.index);
      if (i < node_->rails.size()) {
        auto a = parse_interface_address(node_->rails[i]);
        if (a && node_->rails[i].find('/') == std::string::npos)
          if (auto prefix = subnet_prefix(r_, rail.index)) a->prefix = *prefix;
        if (a) p.address = a->str();
      } else {
        plan_.notes.push_back("node identity has no address for rail " + std::to_string(rail.index));
      }
    }
    p.probe_peer = probe_peer(rail.index, p.address);
    std::string conf = "net/ipv4/conf/" + p.netdev + "/";
    // Several NICs on one host: answer ARP only for the interface's own address and announce
    // it from that interface, or replies leave by the wrong rail.
    p.sysctls.push_back({conf + "arp_ignore", "1"});
    p.sysctls.push_back({conf + "arp_announce", "2"});
    // Soft-RoCE carries RDMA through the kernel's IP stack: a write from one rail of this host
    // to another leaves by the first and comes back in on the second with a local source
    // address, which the kernel drops (ARP included) unless that rail accepts it.
    const RdmaDevice* dev = nic.rdma_device ? inv_.rdma_device(*nic.rdma_device) : nullptr;
    bool soft = !p.soft_roce_device.empty() || (dev && !dev->pci);  // to create, or one already made
    if (soft) p.sysctls.push_back({conf + "accept_local", "1"});
    if (routed()) {
      // A routed rail: its own table (what its address sends to its leaf) and a loose
      // reverse-path filter, for BGP spreads the fabric's routes over every rail; never a
      // router advertisement's default route or address.
      p.table = r_.addressing.table_base + rail.index;
      p.sysctls.push_back({conf + "rp_filter", "2"});
      p.sysctls.push_back({"net/ipv6/conf/" + p.netdev + "/accept_ra", "0"});
      // A probe the node holds itself would be answered by its loopback: never one of those.
      auto own = [&](const std::string& ip) {
        if (!node_) return false;
        for (const auto& a : node_->rails)
          if (a.substr(0, a.find('/')) == ip) return true;
        return node_->vtep == ip;
      };
      for (const auto& prefix : r_.routing.fabric_prefixes)
        if (auto c = parse_cidr(prefix))
          for (std::uint32_t host = c->prefix < 32 ? 1u : 0u; host < 4; ++host)
            if (std::string ip = Ipv4{c->network.value + host}.str(); !own(ip)) {
              p.route_probes.push_back(ip);
              break;
            }
      for (const auto& t : r_.nvmeof)
        if (t.rail == rail.index &&
            std::find(p.route_probes.begin(), p.route_probes.end(), t.address) == p.route_probes.end())
          p.route_probes.push_back(t.address);
      // The reference's rail /32 is reached over this rail's table, as the probe is.
      if (!p.probe_peer.empty() && r_.probe.required != Requirement::off &&
          std::find(p.route_probes.begin(), p.route_probes.end(), p.probe_peer) == p.route_probes.end())
        p.route_probes.push_back(p.probe_peer);
    } else if (r_.addressing.mode == AddressingMode::shared_subnet) {
      p.table = r_.addressing.table_base + rail.index;
      p.sysctls.push_back({conf + "rp_filter", "2"});
    }
    if (f.pfc != Requirement::off) {
      p.pfc_priority = f.pfc_priority;
      p.pfc_enable = 1 << f.pfc_priority;
      p.trust = f.trust;
    }
    if (f.ecn != Requirement::off) {
      p.ecn_priority = f.pfc_priority;
      p.cnp_dscp = f.cnp_dscp;
    }
    p.roce_dscp = f.roce_dscp;
    p.dscp_to_priority = dscp_to_priority(f);
    p.roce_tos = roce_tos(f);
    p.storm_timeout_ms = f.pfc_storm_timeout_ms;
    if (!p.rdma_device.empty())
      if (const RdmaDevice* d = inv_.rdma_device(p.rdma_device))
        p.roce_v2_gid_index = roce_v2_gid_index(*d, p.rdma_port, p.netdev, false);
    return p;
  }

  void modules() {
    auto add = [&](const std::string& m) {
      if (std::find(plan_.modules.begin(), plan_.modules.end(), m) == plan_.modules.end()) plan_.modules.push_back(m);
    };
    for (const auto& m : recipe_modules(r_)) add(m);
    if (!inv_.gpus.empty() && r_.hardware.gpu_vendor == GpuVendor::nvidia && r_.gpudirect.peermem) {
      add("nvidia_peermem");
      plan_.peermem = true;
    }
  }

  void gpudirect(const RailMap& map) {
    if (!r_.gpudirect.disable_acs) return;
    for (const auto& rail : map.rails)
      for (std::size_t g : rail.gpus)
        for (const auto& b : bridges_between(inv_.gpus[g].pci, inv_.nics[rail.nic].pci))
          if (std::find(plan_.acs_disable.begin(), plan_.acs_disable.end(), b) == plan_.acs_disable.end())
            plan_.acs_disable.push_back(b);
    std::sort(plan_.acs_disable.begin(), plan_.acs_disable.end());
  }

  void nvmeof() {
    for (const auto& t : r_.nvmeof) {  // every target's rail exists: checked in run()
      const RailPlan& rail = plan_.rails[static_cast<std::size_t>(t.rail)];
      NvmeofConnection c{t.transport, t.address, t.port, t.nqn, t.rail, rail.netdev, "", t.required};
      if (rail.address) c.host_traddr = rail.address->substr(0, rail.address->find('/'));
      plan_.nvmeof.push_back(std::move(c));
    }
  }

  void check(CheckId id, std::string expected, bool required = true) {
    plan_.checks.push_back({std::move(id), std::move(expected), required});
  }

  bool nvidia() const { return r_.hardware.gpu_vendor == GpuVendor::nvidia && !inv_.gpus.empty(); }
  bool nvml_checks() const { return nvidia() && r_.selftest.gpu_health != Requirement::off; }
  bool gpudirect_checks() const { return nvidia() && r_.selftest.gpudirect != Requirement::off; }

  // NVML's checks per GPU (firstboot/gpu): on NVIDIA GPUs unless the recipe turns them off;
  // best-effort ones warn. Persistence mode only ever warns.
  void gpu_health() {
    if (!nvml_checks()) return;
    const SelftestSpec& st = r_.selftest;
    const bool req = st.gpu_health == Requirement::required;
    const std::string be = requirement_suffix(st.gpu_health);
    const int links = r_.hardware.nvlinks_per_gpu;
    using K = CheckKind;
    for (std::size_t i = 0; i < inv_.gpus.size(); ++i) {
      auto id = [&](CheckKind k) { return CheckId::gpu(k, static_cast<int>(i)); };
      check(id(K::gpu_nvml), "NVML has " + inv_.gpus[i].pci.bdf + be, req);
      check(id(K::gpu_persistence), "persistence mode on", false);
      check(id(K::gpu_ecc),
            "ECC on, <= " + std::to_string(st.gpu_max_ecc_uncorrected) + " volatile uncorrectable errors" + be, req);
      check(id(K::gpu_row_remap), "no row remap or page retirement pending, no remap failure" + be, req);
      std::vector<std::string> xids;
      for (int x : st.gpu_fatal_xids) xids.push_back(std::to_string(x));
      check(id(K::gpu_xid), "no XID " + join(xids, ", ") + " in the kernel log since boot" + be, req);
      check(id(K::gpu_throttle), "no hardware slowdown" + be, req);
      check(id(K::gpu_temperature), "<= " + std::to_string(st.gpu_max_temp_c) + " °C" + be, req);
      check(id(K::gpu_nvml_pcie), "link at its maximum width" + be, req);
      check(id(K::gpu_nvlink),
            (links > 0 ? ">= " + std::to_string(links) + " NVLinks active" : std::string("every NVLink active")) + be,
            req);
    }
  }

  void checks() {
    const HardwareSpec& hw = r_.hardware;
    const FabricSpec& f = r_.fabric;
    using K = CheckKind;
    check(CheckId::node(K::gpu_count), std::to_string(hw.gpu_count));
    if (!hw.gpu_device_ids.empty()) {
      std::string ids;
      for (const auto& id : hw.gpu_device_ids) ids += (ids.empty() ? "" : " or ") + id;
      check(CheckId::node(K::gpu_model), "device " + ids);
    }
    std::string link = pcie_expectation();
    if (!link.empty())
      for (std::size_t g = 0; g < inv_.gpus.size(); ++g)
        check(CheckId::gpu(K::gpu_pcie_link, static_cast<int>(g)), link);
    gpu_health();
    check(CheckId::node(K::rails_count), std::to_string(plan_.rails.size()));
    const bool pfc = f.pfc != Requirement::off, pfc_required = f.pfc == Requirement::required;
    for (const auto& rail : plan_.rails) {
      auto id = [&](CheckKind k) { return CheckId::rail(k, rail.index); };
      if (rail.affinity) check(id(K::rail_affinity), "at worst " + to_string(hw.max_affinity));
      if (nvml_checks() && !rail.gpu_pcis.empty())
        check(id(K::rail_gpu_topology), "NVML's view of " + join(rail.gpu_pcis, ", ") + " agrees with the pairing",
              false);
      if (!link.empty()) check(id(K::rail_pcie_link), link);
      // A bonded rail: every port up and at speed, and the per-port settings on each.
      const std::string ports = rail.bond_ports.empty() ? "" : " on each of " + join(rail.bond_ports, ", ");
      check(id(K::rail_link), rail.bond_ports.empty() ? "up" : "up, every port up");
      if (hw.rail_speed_mbps > 0)
        check(id(K::rail_speed), ">= " + std::to_string(hw.rail_speed_mbps) + " Mb/s" + ports);
      check(id(K::rail_mtu), std::to_string(rail.mtu));
      if (rail.vlan) check(id(K::rail_vlan), rail.netdev + " id " + std::to_string(*rail.vlan));
      if (rail.address) check(id(K::rail_address), *rail.address + " on " + rail.netdev);
      check(id(K::rail_no_default_route), "no default route via " + rail.netdev);
      if (plan_.bgp) {
        check(id(K::rail_bgp), "session with the leaf on " + rail.netdev + " Established within " +
                                   std::to_string(plan_.bgp->session_wait_s) + " s");
        check(id(K::rail_bgp_prefixes), ">= " + std::to_string(plan_.bgp->min_prefixes) + " fabric routes received");
        if (rail.address && !rail.route_probes.empty())
          check(id(K::rail_route), "from " + rail.address->substr(0, rail.address->find('/')) + " to " +
                                       join(rail.route_probes, ", ") + " via " + rail.netdev + " only");
      }
      if (pfc) {
        check(id(K::rail_pfc),
              "priority " + std::to_string(f.pfc_priority) + " lossless" + ports + requirement_suffix(f.pfc),
              pfc_required);
        check(id(K::rail_trust), to_string(f.trust) + ports, pfc_required);
        check(id(K::rail_dscp_map),
              "DSCP " + std::to_string(f.roce_dscp) + " → priority " + std::to_string(f.pfc_priority) + ports,
              pfc_required);
      }
      if (f.ecn != Requirement::off)
        check(id(K::rail_ecn),
              "enabled on priority " + std::to_string(f.pfc_priority) + ports + requirement_suffix(f.ecn),
              f.ecn == Requirement::required);
      check(id(K::rail_roce_tos), std::to_string(rail.roce_tos));
      if (pfc) check(id(K::rail_storm_prevention), std::to_string(rail.storm_timeout_ms) + " ms" + ports, pfc_required);
      check(id(K::rail_rdma_port), "ACTIVE");
      check(id(K::rail_roce_v2_gid), "RoCE v2 IPv4 GID on " + rail.netdev);
      check(id(K::rail_rdma_write), std::to_string(r_.selftest.rdma_bytes) + " bytes written and verified");
      if (gpudirect_checks() && !rail.gpu_pcis.empty())
        check(id(K::rail_gpudirect_write),
              std::to_string(r_.selftest.rdma_bytes) + " bytes from GPU memory to GPU memory of " +
                  join(rail.gpu_pcis, ", ") + ", verified" + requirement_suffix(r_.selftest.gpudirect),
              r_.selftest.gpudirect == Requirement::required);
      if (pfc)
        check(id(K::rail_pause_storm), "< " + std::to_string(r_.selftest.pause_storm_pps) + " pause frames/s" + ports,
              pfc_required);
      if (r_.lldp.wait_s > 0) lldp_checks(rail, pfc ? f.pfc : Requirement::off);
      if (r_.probe.required != Requirement::off && !rail.probe_peer.empty()) peer_checks(rail);
    }
    if (r_.probe.required != Requirement::off) peer_notes();
    // Between two rails of one node on a layer-2 fabric, the leaf switches the frame from one
    // NIC to the other. On routed rails the kernel resolves the other rail's address to that
    // NIC's own MAC, which no routed leaf port forwards: such a write never tests the fabric
    // (cross-rail paths run through the spines, beyond what one node can prove).
    if (plan_.rails.size() >= 2 && !routed())
      check(CheckId::node(K::rails_cross_rdma_write), "RDMA WRITE between every pair of rails");
    // The node's unit, from its rails' neighbours, when fabric.lldp expects the unit's leaves.
    if (!plan_.unit.empty() && lldp_names_unit(r_) && r_.lldp.wait_s > 0)
      check(CheckId::node(K::rails_unit), "every rail on " + plan_.unit + "'s leaves");
    if (const auto& t = plan_.tenant) {
      check(CheckId::node(K::tenant_vxlan),
            t->vxlan + " up, VNI " + std::to_string(t->vni) + " from " + t->vtep + ", " + t->address);
      if (!t->flood.empty()) check(CheckId::node(K::tenant_vtep), "flood to " + join(t->flood, ", ") + ", each routed");
      if (!t->isolation_probe.empty())
        check(CheckId::node(K::tenant_isolation), t->isolation_probe + " (another VNI) unreachable");
    }
    for (std::size_t i = 0; i < plan_.nvmeof.size(); ++i) {
      const auto& c = plan_.nvmeof[i];
      int n = static_cast<int>(i);
      check(CheckId::nvmeof(K::nvmeof_connected, n),
            c.nqn + " live over " + (c.transport == NvmeTransport::rdma ? "rdma" : "tcp"), c.required);
      check(CheckId::nvmeof(K::nvmeof_namespace_read, n), "first namespace readable", c.required);
    }
    if (plan_.peermem) check(CheckId::node(K::gpudirect_peermem), "nvidia_peermem loaded");
    for (const auto& b : plan_.acs_disable) check(CheckId::acs(b), "ACS P2P redirect off");
    // A bus bandwidth needs two GPUs at least: nccl-tests reports 0 for one.
    if (nvidia() && inv_.gpus.size() >= 2 && r_.selftest.nccl_allreduce_min_gbps > 0)
      check(CheckId::node(K::nccl_all_reduce),
            "all_reduce_perf across " + std::to_string(inv_.gpus.size()) +
                " GPUs: bus bandwidth >= " + std::to_string(r_.selftest.nccl_allreduce_min_gbps) + " GB/s");
  }

  // The rail's reference: the node's own (its identity's probe_peers, from the inventory's
  // references), else the recipe's; never the rail's own address.
  std::string probe_peer(int rail, const std::optional<std::string>& address) const {
    auto i = static_cast<std::size_t>(rail);
    std::string peer;
    if (node_ && i < node_->probe_peers.size()) peer = node_->probe_peers[i];
    if (peer.empty() && i < r_.probe.peers.size()) peer = r_.probe.peers[i];
    if (address && address->substr(0, address->find('/')) == peer) return "";
    return peer;
  }

  // Across the leaf to the rail's reference: the write and its counters, then the figures.
  void peer_checks(const RailPlan& rail) {
    auto id = [&](CheckKind k) { return CheckId::rail(k, rail.index); };
    const ProbeSpec& p = r_.probe;
    const bool req = p.required == Requirement::required;
    const std::string be = requirement_suffix(p.required);
    std::string lossless = rail.pfc_priority >= 0
                               ? ", no retransmission or drop on priority " + std::to_string(rail.pfc_priority)
                               : ", no retransmission";
    check(id(CheckKind::rail_peer_write),
          std::to_string(p.bytes) + " bytes to " + rail.probe_peer + " across the leaf, verified" + lossless + be, req);
    // Soft-RoCE: a device to create, or one made already (a second boot's), with no PCI function.
    const RdmaDevice* dev = inv_.rdma_device(rail.rdma_device);
    const bool soft = !rail.soft_roce_device.empty() || (dev && !dev->pci);
    std::string gbps = p.min_gbps > 0 ? ">= " + format_number(p.min_gbps) + " Gb/s"
                       : soft         ? std::string("measured (no bound on Soft-RoCE)")
                                      : std::string(">= 80% of the link's speed");
    check(id(CheckKind::rail_peer_bandwidth), gbps + be, req);
    std::string us = p.max_latency_us > 0 ? "<= " + format_number(p.max_latency_us) + " µs"
                     : soft               ? std::string("measured (no bound on Soft-RoCE)")
                                          : std::string("<= 50 µs");
    check(id(CheckKind::rail_peer_latency), us + be, req);
  }

  // Says which rails have no reference, so that a plan without peer checks says why.
  void peer_notes() {
    std::vector<std::string> without;
    for (const auto& rail : plan_.rails)
      if (rail.probe_peer.empty()) without.push_back(std::to_string(rail.index));
    if (without.empty()) return;
    if (without.size() == plan_.rails.size())
      plan_.notes.push_back(
          "no peer checks: no rail has a reference (an inventory node with reference = true, or "
          "[fabric.probe] peers); the fabric between nodes is not proven before the join");
    else
      plan_.notes.push_back("no peer check on rail " + join(without, ", ") +
                            ": no reference there (an inventory node with reference = true, or [fabric.probe] "
                            "peers)");
  }

  // The far end of the rail: who its neighbour is (a mismatch always fails; silence fails
  // only when [fabric.lldp] requires it, which verify reads from plan.lldp), and what the
  // leaf port advertises against what the rail is.
  void lldp_checks(const RailPlan& rail, Requirement pfc) {
    auto id = [&](CheckKind k) { return CheckId::rail(k, rail.index); };
    std::vector<std::string> who;
    if (!rail.lldp_system.empty()) who.push_back("system " + rail.lldp_system);
    if (!rail.lldp_port.empty()) who.push_back("port " + rail.lldp_port);
    check(id(CheckKind::rail_lldp),
          who.empty() ? "a neighbour within " + std::to_string(r_.lldp.wait_s) + " s" : join(who, ", "));
    if (pfc != Requirement::off)
      check(id(CheckKind::rail_lldp_pfc),
            "PFC enable " + hex(static_cast<unsigned>(rail.pfc_enable), 2) + " (priority " +
                std::to_string(rail.pfc_priority) + ")",
            pfc == Requirement::required);
    check(id(CheckKind::rail_lldp_mtu), "maximum frame size >= " + std::to_string(rail_frame_size(rail)));
    if (rail.vlan) check(id(CheckKind::rail_lldp_vlan), "VLAN " + std::to_string(*rail.vlan));
  }

  std::string pcie_expectation() const {
    const HardwareSpec& hw = r_.hardware;
    std::string out;
    if (hw.pcie_gen > 0) out += "Gen" + std::to_string(hw.pcie_gen);
    if (hw.pcie_width > 0) out += std::string(out.empty() ? "" : " ") + "x" + std::to_string(hw.pcie_width);
    return out.empty() ? "" : ">= " + out;
  }

  const Inventory& inv_;
  const Recipe& r_;
  const std::optional<NodeEntry>& node_;
  Plan plan_;
};

}  // namespace

Plan make_plan(const Inventory& inv, const Recipe& recipe, const std::optional<NodeEntry>& node) {
  return Planner(inv, recipe, node).run();
}

std::vector<std::string> recipe_modules(const Recipe& r) {
  std::vector<std::string> out;
  auto add = [&](const std::string& m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  if (r.fabric.vlan) add("8021q");
  if (r.fabric.soft_roce) {
    add("crc32_generic");  // rdma_rxe needs it and module dependencies do not pull it in
    add("rdma_rxe");
  }
  add("ib_uverbs");
  add("rdma_cm");
  add("rdma_ucm");
  for (const auto& t : r.nvmeof) add(t.transport == NvmeTransport::rdma ? "nvme_rdma" : "nvme_tcp");
  return out;
}

std::string modules_load_conf(const Recipe& recipe) {
  std::string out = "# railyard build, recipe " + recipe.name +
                    ": the modules railyard-firstboot's plan loads on every node of it, loaded\n"
                    "# at early boot (systemd-modules-load) instead of once the agent has started. The agent\n"
                    "# loads any that failed here itself, and reports it.\n";
  for (const auto& m : recipe_modules(recipe)) out += m + "\n";
  return out;
}

std::vector<std::string> target_modules(const Recipe& recipe) {
  Recipe rails = recipe;
  rails.nvmeof.clear();  // a target does not connect to itself: no nvme_rdma
  std::vector<std::string> out = recipe_modules(rails);
  auto add = [&](const std::string& m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  add("null_blk");
  add("nvmet");
  for (const auto& t : recipe.nvmeof) add(t.transport == NvmeTransport::rdma ? "nvmet_rdma" : "nvmet_tcp");
  return out;
}

Plan settled_plan(const Plan& applied, const Inventory& now, const Recipe& recipe) {
  Plan p = applied;
  if (!p.ok()) return p;
  for (auto& rail : p.rails) {
    const RdmaDevice* d = now.rdma_device(rail.rdma_device);
    rail.roce_v2_gid_index = d ? roce_v2_gid_index(*d, rail.rdma_port, rail.netdev, false) : std::nullopt;
  }
  p.files = nccl_files(now, recipe, p);
  for (auto& f : frr_node_files(p)) p.files.push_back(std::move(f));
  return p;
}

}  // namespace railyard
