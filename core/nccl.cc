#include "nccl.h"

#include <algorithm>
#include <map>
#include <set>

namespace railyard {

namespace {

std::string hca_list(const Plan& plan, const std::vector<const RailPlan*>& rails) {
  std::string out;
  for (const auto* r : rails) out += (out.empty() ? "" : ",") + r->rdma_device + ":" + std::to_string(r->rdma_port);
  (void)plan;
  return out;
}

std::string header(const Plan& plan) {
  std::string who = plan.node.empty() ? std::string("this node") : plan.node;
  return "# Written by railyard-firstboot for " + who + " (recipe " + plan.recipe + "); do not edit.\n";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"') out += "&quot;";
    else if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string pci_attrs(const PciFunction& p) {
  std::string out =
      "busid=\"" + p.bdf + "\" class=\"" + p.class_code + "\" vendor=\"" + p.vendor + "\" device=\"" + p.device + "\"";
  if (!p.subsystem_vendor.empty())
    out += " subsystem_vendor=\"" + p.subsystem_vendor + "\" subsystem_device=\"" + p.subsystem_device + "\"";
  // What the link can do, as NCCL reads it itself (max_link_speed/width): a value in the file
  // overrides NCCL's own, and a GPU link that idles at a lower speed at boot would be
  // modelled at that. A link that trained below its maximum is the pcie_link checks' concern.
  const std::string& speed = p.max_link_speed.empty() ? p.current_link_speed : p.max_link_speed;
  int width = p.max_link_width > 0 ? p.max_link_width : p.current_link_width;
  if (!speed.empty()) out += " link_speed=\"" + xml_escape(speed) + "\" link_width=\"" + std::to_string(width) + "\"";
  return out;
}

// A tree of PCI functions under one NUMA node, built from the devices' paths.
struct Node {
  const PciFunction* fn = nullptr;
  std::map<std::string, Node> children;  // by address: deterministic order
};

void render(const Node& n, int depth, std::string& out) {
  std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  if (n.children.empty()) {
    out += pad + "<pci " + pci_attrs(*n.fn) + "/>\n";
    return;
  }
  out += pad + "<pci " + pci_attrs(*n.fn) + ">\n";
  for (const auto& [bdf, c] : n.children) render(c, depth + 1, out);
  out += pad + "</pci>\n";
}

}  // namespace

const Gid* nccl_default_gid(const RdmaDevice& dev, int port) {
  const RdmaPort* p = dev.port(port);
  if (!p) return nullptr;
  const Gid* best = nullptr;
  for (const auto& g : p->gids)
    if (g.type == "RoCE v2" && g.ipv4_mapped() && (!best || g.index < best->index)) best = &g;
  return best;
}

std::optional<int> pinned_gid_index(const Plan& plan) {
  std::set<int> indices;
  bool any = false;
  for (const auto& rail : plan.rails) {
    if (rail.rdma_device.empty()) continue;
    any = true;
    if (!rail.roce_v2_gid_index) return std::nullopt;
    indices.insert(*rail.roce_v2_gid_index);
  }
  if (!any || indices.size() != 1) return std::nullopt;
  return *indices.begin();
}

std::string nccl_conf(const Recipe& r, const Plan& plan) {
  std::vector<const RailPlan*> rails;
  for (const auto& rail : plan.rails)
    if (!rail.rdma_device.empty()) rails.push_back(&rail);
  std::string out = header(plan);
  // No '=' in a comment: NCCL before 2.26 reads any line holding one as a variable. And only
  // what is true: NCCL probes the listed devices in its own (ibverbs) order, not this one.
  out += "# The rail RDMA devices; a leading equals sign makes NCCL match their names exactly.\n";
  out += "NCCL_IB_DISABLE=0\n";
  if (!rails.empty()) out += "NCCL_IB_HCA==" + hca_list(plan, rails) + "\n";
  // One GID index only when it is right for every rail; otherwise NCCL picks per device,
  // held to RoCE v2 over IPv4 (each GPU's env file pins its own rail's index).
  if (auto index = pinned_gid_index(plan)) {
    out += "NCCL_IB_GID_INDEX=" + std::to_string(*index) + "\n";
  } else {
    out += "NCCL_IB_ADDR_FAMILY=AF_INET\n";
    out += "NCCL_IB_ROCE_VERSION_NUM=2\n";
  }
  out += "NCCL_IB_TC=" + std::to_string(roce_tos(r.fabric)) + "\n";
  if (r.nccl.ib_sl) out += "NCCL_IB_SL=" + std::to_string(*r.nccl.ib_sl) + "\n";
  if (!plan.management.empty()) out += "NCCL_SOCKET_IFNAME==" + plan.management + "\n";
  out += "NCCL_CROSS_NIC=" + std::to_string(r.nccl.cross_nic) + "\n";
  out += "NCCL_NET_GDR_LEVEL=" + to_string(r.nccl.gdr_level) + "\n";
  out += "NCCL_TOPO_FILE=" + r.nccl.topo_file + "\n";
  for (const auto& [k, v] : r.nccl.extra) out += k + "=" + v + "\n";
  return out;
}

std::string nccl_topology_xml(const Inventory& inv, const Plan& plan) {
  // Only what NCCL needs to see: the GPUs, the rail NICs and the bridges above them.
  std::vector<const PciFunction*> leaves;
  for (const auto& g : inv.gpus) leaves.push_back(&g.pci);
  for (const auto& rail : plan.rails)
    if (const Nic* n = inv.nic(rail.ifname)) leaves.push_back(&n->pci);
  std::map<int, std::map<std::string, Node>> roots;  // numa → root port address → subtree
  for (const PciFunction* leaf : leaves) {
    // No NUMA information (-1) means one node: the same <cpu> as node 0.
    std::map<std::string, Node>* level = &roots[std::max(leaf->numa_node, 0)];
    for (const auto& b : leaf->bridges) {
      auto it = inv.bridges.find(b);
      if (it == inv.bridges.end()) continue;  // unknown bridge: attach below the last known one
      Node& n = (*level)[b];
      n.fn = &it->second;
      level = &n.children;
    }
    (*level)[leaf->bdf].fn = leaf;
  }
  std::string out = "<system version=\"1\">\n";
  for (const auto& [numa, tree] : roots) {
    std::string affinity;
    for (const auto& node : inv.numa)
      if (node.id == numa) affinity = node.cpumap;
    out += "  <cpu numaid=\"" + std::to_string(numa) + "\"";
    if (!affinity.empty()) out += " affinity=\"" + affinity + "\"";
    out += ">\n";
    for (const auto& [bdf, n] : tree) render(n, 2, out);
    out += "  </cpu>\n";
  }
  out += "</system>\n";
  return out;
}

std::string nccl_gpu_env(const Inventory& inv, const Plan& plan, std::size_t gpu) {
  const std::string& bdf = inv.gpus[gpu].pci.bdf;
  for (const auto& rail : plan.rails) {
    if (std::find(rail.gpu_pcis.begin(), rail.gpu_pcis.end(), bdf) == rail.gpu_pcis.end()) continue;
    std::string dev = rail.rdma_device + ":" + std::to_string(rail.rdma_port);
    // The rail's own GID, pinned: NCCL's own choice is the port's lowest IPv4 RoCE v2 GID,
    // which an address on the parent of a VLAN rail would take.
    std::string gid =
        rail.roce_v2_gid_index ? "NCCL_IB_GID_INDEX=" + std::to_string(*rail.roce_v2_gid_index) + "\n" : "";
    return header(plan) + "# GPU " + std::to_string(gpu) + " (" + bdf + ") → rail " + std::to_string(rail.index) +
           " (" + rail.ifname + ")\nNCCL_IB_HCA==" + dev + "\n" + gid + "UCX_NET_DEVICES=" + dev + "\n";
  }
  return header(plan) + "# GPU " + std::to_string(gpu) + " (" + bdf + ") has no rail\n";
}

std::vector<PlannedFile> nccl_files(const Inventory& inv, const Recipe& r, const Plan& plan) {
  std::vector<PlannedFile> files;
  files.push_back({r.nccl.conf_path, 0644, nccl_conf(r, plan)});
  files.push_back({r.nccl.topo_file, 0644, nccl_topology_xml(inv, plan)});
  for (std::size_t g = 0; g < inv.gpus.size(); ++g)
    files.push_back({r.nccl.env_dir + "/gpu" + std::to_string(g) + ".env", 0644, nccl_gpu_env(inv, plan, g)});
  return files;
}

}  // namespace railyard
