// The plan as JSON (for tools and golden tests) and as text (for people).
#include <sstream>

#include "plan.h"
#include "text.h"

namespace railyard {

using nlohmann::ordered_json;

namespace {

template <class T>
ordered_json opt(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

}  // namespace

ordered_json to_json(const Plan& plan) {
  ordered_json rails = ordered_json::array();
  for (const auto& r : plan.rails) {
    ordered_json sysctls = ordered_json::object();
    for (const auto& s : r.sysctls) sysctls[s.path] = s.value;
    ordered_json rail = {{"index", r.index},
                         {"ifname", r.ifname},
                         {"nic_pci", r.nic_pci},
                         {"nic_model", opt(r.nic_model)},
                         {"rdma_device", r.rdma_device},
                         {"soft_roce", !r.soft_roce_device.empty()},
                         {"rdma_port", r.rdma_port},
                         {"gpu_pcis", r.gpu_pcis},
                         {"affinity", r.affinity ? ordered_json(to_string(*r.affinity)) : ordered_json(nullptr)},
                         {"vlan", opt(r.vlan)},
                         {"netdev", r.netdev},
                         {"mtu", r.mtu},
                         {"roce_path_mtu", r.roce_path_mtu},
                         {"address", opt(r.address)},
                         {"table", opt(r.table)},
                         {"sysctls", sysctls},
                         {"pfc_priority", r.pfc_priority < 0 ? ordered_json(nullptr) : ordered_json(r.pfc_priority)},
                         {"pfc_enable", hex(static_cast<unsigned>(r.pfc_enable), 2)},
                         {"trust", r.trust ? ordered_json(to_string(*r.trust)) : ordered_json(nullptr)},
                         {"ecn_priority", r.ecn_priority < 0 ? ordered_json(nullptr) : ordered_json(r.ecn_priority)},
                         {"cnp_dscp", r.cnp_dscp < 0 ? ordered_json(nullptr) : ordered_json(r.cnp_dscp)},
                         {"roce_dscp", r.roce_dscp},
                         {"dscp_to_priority", r.dscp_to_priority},
                         {"roce_tos", r.roce_tos},
                         {"storm_timeout_ms", r.storm_timeout_ms},
                         {"roce_v2_gid_index", opt(r.roce_v2_gid_index)},
                         {"route_probes", r.route_probes},
                         {"lldp",
                          {{"system", r.lldp_system.empty() ? ordered_json(nullptr) : ordered_json(r.lldp_system)},
                           {"port", r.lldp_port.empty() ? ordered_json(nullptr) : ordered_json(r.lldp_port)}}},
                         {"probe_peer", r.probe_peer.empty() ? ordered_json(nullptr) : ordered_json(r.probe_peer)}};
    if (!r.bond_ports.empty()) rail["bond_ports"] = r.bond_ports;
    rails.push_back(std::move(rail));
  }
  ordered_json nvmeof = ordered_json::array();
  for (const auto& c : plan.nvmeof)
    nvmeof.push_back({{"transport", c.transport == NvmeTransport::rdma ? "rdma" : "tcp"},
                      {"address", c.address},
                      {"port", c.port},
                      {"nqn", c.nqn},
                      {"rail", c.rail},
                      {"host_iface", c.host_iface},
                      {"host_traddr", c.host_traddr},
                      {"required", c.required}});
  ordered_json bgp = nullptr;
  if (plan.bgp)
    bgp = {{"asn", plan.bgp->asn},
           {"shared_asn", plan.bgp->shared_asn},
           {"router_id", plan.bgp->router_id},
           {"fabric_prefixes", plan.bgp->fabric_prefixes},
           {"session_wait_s", plan.bgp->session_wait_s},
           {"min_prefixes", plan.bgp->min_prefixes}};
  ordered_json tenant = nullptr;
  if (plan.tenant)
    tenant = {{"vni", plan.tenant->vni},
              {"vxlan", plan.tenant->vxlan},
              {"vtep", plan.tenant->vtep},
              {"address", plan.tenant->address},
              {"mtu", plan.tenant->mtu},
              {"flood", plan.tenant->flood},
              {"isolation_probe", plan.tenant->isolation_probe.empty() ? ordered_json(nullptr)
                                                                       : ordered_json(plan.tenant->isolation_probe)}};
  ordered_json files = ordered_json::array();
  for (const auto& f : plan.files) {
    std::ostringstream mode;
    mode << "0" << std::oct << f.mode;
    files.push_back({{"path", f.path}, {"mode", mode.str()}, {"bytes", f.content.size()}});
  }
  const HardwareSpec& hw = plan.hardware;
  const SelftestSpec& st = plan.selftest;
  ordered_json hardware = {{"gpu_count", hw.gpu_count},
                           {"gpu_device_ids", hw.gpu_device_ids},
                           {"rail_count", hw.rail_count},
                           {"rail_speed_mbps", hw.rail_speed_mbps},
                           {"pcie_gen", hw.pcie_gen},
                           {"pcie_width", hw.pcie_width},
                           {"max_affinity", to_string(hw.max_affinity)}};
  ordered_json selftest = {{"check_timeout_ms", st.check_timeout_ms}, {"link_wait_s", st.link_wait_s},
                           {"storage_wait_s", st.storage_wait_s},     {"rdma_bytes", st.rdma_bytes},
                           {"rdma_min_mbps", st.rdma_min_mbps},       {"pause_sample_ms", st.pause_sample_ms},
                           {"pause_storm_pps", st.pause_storm_pps},   {"lldp_wait_s", plan.lldp.wait_s},
                           {"lldp_required", plan.lldp.required}};
  ordered_json checks = ordered_json::array();
  for (const auto& c : plan.checks)
    checks.push_back({{"name", c.id.name()}, {"expected", c.expected}, {"required", c.required}});
  return {{"schema", 1},
          {"recipe", plan.recipe},
          {"node", plan.node.empty() ? ordered_json(nullptr) : ordered_json(plan.node)},
          {"unit", plan.unit.empty() ? ordered_json(nullptr) : ordered_json(plan.unit)},
          {"ok", plan.ok()},
          {"problems", plan.problems},
          {"warnings", plan.warnings},
          {"notes", plan.notes},
          {"management", plan.management.empty() ? ordered_json(nullptr) : ordered_json(plan.management)},
          {"rails", rails},
          {"gpus", plan.gpus},
          {"non_rail_nics", plan.non_rail_nics},
          {"modules", plan.modules},
          {"gpudirect", {{"peermem", plan.peermem}, {"acs_disable", plan.acs_disable}}},
          {"nvmeof", nvmeof},
          {"bgp", bgp},
          {"tenant", tenant},
          {"files", files},
          {"hardware", hardware},
          {"selftest", selftest},
          {"probe",
           {{"required", to_string(plan.probe.required)},
            {"port", plan.probe.port},
            {"bytes", plan.probe.bytes},
            {"min_gbps", plan.probe.min_gbps},
            {"max_latency_us", plan.probe.max_latency_us},
            {"timeout_ms", plan.probe.timeout_ms}}},
          {"checks", checks}};
}

std::string to_text(const Plan& plan) {
  std::ostringstream out;
  out << "plan for " << (plan.node.empty() ? "this node" : plan.node) << " (recipe " << plan.recipe << ")\n";
  for (const auto& p : plan.problems) out << "  PROBLEM: " << p << "\n";
  for (const auto& w : plan.warnings) out << "  warning: " << w << "\n";
  for (const auto& n : plan.notes) out << "  note: " << n << "\n";
  if (!plan.ok()) return out.str();
  out << "management: " << (plan.management.empty() ? "(none matched)" : plan.management) << " (never touched)\n";
  out << "rails:\n";
  for (const auto& r : plan.rails) {
    out << "  " << r.index << "  " << r.netdev << " on " << r.ifname << " " << r.nic_pci << "  " << r.rdma_device
        << (r.soft_roce_device.empty() ? "" : " (Soft-RoCE, created)") << "  mtu " << r.mtu << " (RoCE "
        << r.roce_path_mtu << ")  " << (r.address ? *r.address : "(no address)");
    if (r.table) out << "  table " << *r.table;
    if (r.nic_model) out << "  " << *r.nic_model;
    out << "\n     pfc " << hex(static_cast<unsigned>(r.pfc_enable), 2);
    if (!r.bond_ports.empty()) out << " on ports " << join(r.bond_ports, ", ");
    out << "  tos " << r.roce_tos << "  storm " << r.storm_timeout_ms << " ms";
    if (!r.lldp_system.empty() || !r.lldp_port.empty())
      out << "  lldp " << (r.lldp_system.empty() ? "*" : r.lldp_system) << " "
          << (r.lldp_port.empty() ? "*" : r.lldp_port);
    if (!r.probe_peer.empty()) out << "  probe " << r.probe_peer;
    if (!r.gpu_pcis.empty()) {
      out << "  gpus";
      for (const auto& g : r.gpu_pcis) out << " " << g;
      out << " (" << (r.affinity ? to_string(*r.affinity) : "-") << ")";
    }
    out << "\n";
  }
  if (!plan.non_rail_nics.empty()) {
    out << "non-rail RDMA NICs:";
    for (const auto& n : plan.non_rail_nics) out << " " << n;
    out << "\n";
  }
  out << "modules:";
  for (const auto& m : plan.modules) out << " " << m;
  out << "\n";
  if (plan.peermem || !plan.acs_disable.empty()) {
    out << "gpudirect: peermem " << (plan.peermem ? "on" : "off") << ", ACS off on";
    for (const auto& b : plan.acs_disable) out << " " << b;
    out << (plan.acs_disable.empty() ? " (none)" : "") << "\n";
  }
  for (const auto& c : plan.nvmeof)
    out << "nvmeof: " << c.nqn << " at " << c.address << ":" << c.port << " via rail " << c.rail << " (" << c.host_iface
        << ")\n";
  if (plan.bgp) {
    out << "bgp: AS " << plan.bgp->asn << (plan.bgp->shared_asn ? " (the recipe's, shared)" : "") << ", router ID "
        << plan.bgp->router_id << ", unnumbered on every rail; fabric " << join(plan.bgp->fabric_prefixes, ", ")
        << "\n";
    for (const auto& r : plan.rails)
      if (r.table && r.address)
        out << "  rail " << r.index << ": from " << r.address->substr(0, r.address->find('/')) << " lookup table "
            << *r.table << " (the fabric via " << r.netdev << "'s leaf)\n";
  }
  if (plan.tenant)
    out << "tenant: VNI " << plan.tenant->vni << " on " << plan.tenant->vxlan << " from VTEP " << plan.tenant->vtep
        << ", " << plan.tenant->address << ", mtu " << plan.tenant->mtu
        << (plan.tenant->flood.empty() ? "" : ", flood to " + join(plan.tenant->flood, ", ")) << "\n";
  out << "files:\n";
  for (const auto& f : plan.files) out << "  " << f.path << " (" << f.content.size() << " bytes)\n";
  out << "checks: " << plan.checks.size() << "\n";
  for (const auto& c : plan.checks)
    out << "  " << c.id.name() << ": " << c.expected << (c.required ? "" : " [not required]") << "\n";
  return out.str();
}

}  // namespace railyard
