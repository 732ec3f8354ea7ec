#include "inventory.h"

#include <algorithm>

#include "net.h"
#include "text.h"

namespace railyard {

using nlohmann::ordered_json;

bool Gid::ipv4_mapped() const { return gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0; }

const RdmaPort* RdmaDevice::port(int n) const {
  for (const auto& p : ports)
    if (p.port == n) return &p;
  return nullptr;
}

const RdmaDevice* Inventory::rdma_device(const std::string& name) const {
  for (const auto& d : rdma)
    if (d.name == name) return &d;
  return nullptr;
}

const Nic* Inventory::nic(const std::string& ifname) const {
  for (const auto& n : nics)
    if (n.ifname == ifname) return &n;
  return nullptr;
}

const Nic* Inventory::management() const {
  for (const auto& n : nics)
    if (n.management) return &n;
  return nullptr;
}

std::optional<int> roce_v2_gid_index(const RdmaDevice& dev, int port, const std::string& netdev, bool or_vlans) {
  const RdmaPort* p = dev.port(port);
  if (!p) return std::nullopt;
  std::optional<int> best;
  for (const auto& g : p->gids) {
    if (g.type != "RoCE v2" || !g.ipv4_mapped()) continue;
    bool ours = g.ndev == netdev || (or_vlans && g.ndev.rfind(netdev + ".", 0) == 0);
    if (ours && (!best || g.index < *best)) best = g.index;
  }
  return best;
}

std::optional<GidRef> roce_v2_gid_of(const Inventory& inv, const std::string& ipv4) {
  auto a = parse_ipv4(ipv4);
  if (!a) return std::nullopt;
  // The mapped address's last 32 bits, as sysfs writes them: "c612:0064".
  std::string tail = hex(a->value >> 16, 4).substr(2) + ":" + hex(a->value & 0xffff, 4).substr(2);
  for (const auto& d : inv.rdma)
    if (const RdmaPort* p = d.port(1))
      for (const auto& g : p->gids)
        if (g.type == "RoCE v2" && g.ipv4_mapped() && g.gid.ends_with(tail)) return GidRef{d.name, g.index};
  return std::nullopt;
}

void normalize(Inventory& inv) {
  std::sort(inv.gpus.begin(), inv.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.pci.bdf < b.pci.bdf; });
  std::sort(inv.nics.begin(), inv.nics.end(), [](const Nic& a, const Nic& b) {
    return a.pci.bdf != b.pci.bdf ? a.pci.bdf < b.pci.bdf : a.ifname < b.ifname;
  });
  std::sort(inv.rdma.begin(), inv.rdma.end(), [](const RdmaDevice& a, const RdmaDevice& b) { return a.name < b.name; });
  std::sort(inv.nvme.begin(), inv.nvme.end(), [](const NvmeController& a, const NvmeController& b) {
    return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
  });
  std::sort(inv.numa.begin(), inv.numa.end(), [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
}

namespace {

ordered_json optional_string(const std::optional<std::string>& s) {
  return s ? ordered_json(*s) : ordered_json(nullptr);
}

ordered_json link_json(const PciFunction& p) {
  return {{"current_speed", p.current_link_speed},
          {"current_width", p.current_link_width},
          {"max_speed", p.max_link_speed},
          {"max_width", p.max_link_width}};
}

}  // namespace

ordered_json to_json(const PciFunction& p) {
  return {{"pci", p.bdf},
          {"vendor", p.vendor},
          {"device", p.device},
          {"class", p.class_code},
          {"numa_node", p.numa_node},
          {"driver", p.driver},
          {"host_bridge", p.host_bridge},
          {"pci_path", p.bridges},
          {"link", link_json(p)}};
}

ordered_json to_json(const Inventory& inv) {
  ordered_json gpus = ordered_json::array();
  for (const auto& g : inv.gpus) {
    ordered_json j = to_json(g.pci);
    j["model"] = optional_string(g.pci.model);
    j["vendor_name"] = optional_string(g.pci.vendor_name);
    gpus.push_back(std::move(j));
  }
  ordered_json nics = ordered_json::array();
  for (const auto& n : inv.nics) {
    std::optional<int> gid;
    if (n.rdma_device)
      if (const auto* d = inv.rdma_device(*n.rdma_device)) gid = roce_v2_gid_index(*d, n.rdma_port, n.ifname, true);
    ordered_json j = {{"ifname", n.ifname},
                      {"pci", n.pci.bdf},
                      {"numa_node", n.pci.numa_node},
                      {"rdma_device", optional_string(n.rdma_device)},
                      {"roce_v2_gid_index", gid ? ordered_json(*gid) : ordered_json(nullptr)},
                      {"speed_mbps", n.speed_mbps},
                      {"model", optional_string(n.pci.model)},
                      {"vendor_name", optional_string(n.pci.vendor_name)},
                      {"id_path", optional_string(n.id_path)},
                      {"net_name_path", optional_string(n.net_name_path)},
                      {"mac", n.mac},
                      {"operstate", n.operstate},
                      {"mtu", n.mtu},
                      {"driver", n.pci.driver},
                      {"virtio", n.virtio},
                      {"dcb_emulated_by", optional_string(n.dcb_emulated_by)},
                      {"master", n.master.empty() ? ordered_json(nullptr) : ordered_json(n.master)},
                      {"management", n.management},
                      {"host_bridge", n.pci.host_bridge},
                      {"pci_path", n.pci.bridges},
                      {"link", link_json(n.pci)}};
    if (n.bonded()) {
      ordered_json ports = ordered_json::array();
      for (const auto& p : n.bond_ports)
        ports.push_back(
            {{"ifname", p.ifname}, {"pci", p.pci}, {"operstate", p.operstate}, {"speed_mbps", p.speed_mbps}});
      j["bond"] = {{"mode", n.bond_mode}, {"ports", std::move(ports)}};
    }
    nics.push_back(std::move(j));
  }
  ordered_json rdma = ordered_json::array();
  for (const auto& d : inv.rdma) {
    ordered_json ports = ordered_json::array();
    for (const auto& p : d.ports) {
      ordered_json gids = ordered_json::array();
      for (const auto& g : p.gids)
        gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"ndev", g.ndev}});
      ports.push_back({{"port", p.port},
                       {"state", p.state},
                       {"phys_state", p.phys_state},
                       {"link_layer", p.link_layer},
                       {"gids", gids}});
    }
    rdma.push_back({{"name", d.name}, {"pci", optional_string(d.pci)}, {"netdev", d.netdev}, {"ports", ports}});
  }
  ordered_json nvme = ordered_json::array();
  for (const auto& c : inv.nvme)
    nvme.push_back({{"name", c.name},
                    {"transport", c.transport},
                    {"address", c.address},
                    {"subsysnqn", c.subsysnqn},
                    {"state", c.state},
                    {"model", c.model},
                    {"pci", optional_string(c.pci)}});
  ordered_json numa = ordered_json::array();
  for (const auto& n : inv.numa) numa.push_back({{"id", n.id}, {"cpulist", n.cpulist}});
  return {{"gpus", gpus}, {"nics", nics}, {"rdma_devices", rdma}, {"nvme", nvme}, {"numa_nodes", numa}};
}

}  // namespace railyard
