// Test helpers: inventories built in code (GPUs and NICs behind PCIe switches), a recipe and a node to plan them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "inventory.h"
#include "node_inventory.h"
#include "recipe_loader.h"

namespace railyard::test {

// Two lower-case hex digits of `v`.
inline std::string hex2(int v) {
  const char* digits = "0123456789abcdef";
  return std::string{digits[(v >> 4) & 15], digits[v & 15]};
}

// A PCI function at `bdf` below `host_bridge`, behind `bridges` (root port first).
inline PciFunction pci(const std::string& bdf, const std::string& host_bridge, std::vector<std::string> bridges,
                       int numa = 0) {
  PciFunction p;
  p.bdf = bdf;
  p.host_bridge = host_bridge;
  p.bridges = std::move(bridges);
  p.numa_node = numa;
  return p;
}

// A PCIe bridge, recorded in inv.bridges: the root port when `root`, else a switch port.
inline void add_bridge(Inventory& inv, PciFunction p, bool root) {
  p.vendor = root ? "0x8086" : "0x1000";
  p.device = root ? "0x347a" : "0xc030";
  p.class_code = "0x060400";
  inv.bridges[p.bdf] = p;
}

// An NVIDIA H100 (0x10de:0x2330) on a Gen5 x16 link.
inline Gpu gpu(PciFunction p) {
  p.vendor = "0x10de";
  p.device = "0x2330";
  p.class_code = "0x030200";
  p.current_link_speed = "32.0 GT/s PCIe";
  p.current_link_width = 16;
  return Gpu{std::move(p)};
}

// A Mellanox ConnectX-7 (0x15b3:0x1021) port, link up; `rdma`: the name of its RDMA device.
inline Nic nic(const std::string& ifname, PciFunction p, std::optional<std::string> rdma = std::nullopt) {
  Nic n;
  n.ifname = ifname;
  n.pci = std::move(p);
  n.pci.vendor = "0x15b3";
  n.pci.device = "0x1021";
  n.pci.class_code = "0x020000";
  n.rdma_device = std::move(rdma);
  n.operstate = "up";
  return n;
}

// GID `index` of `ndev`: IPv4-mapped (198.18.<index>.11), RoCE v2 unless `type` says otherwise.
inline Gid gid(int index, const std::string& ndev, const std::string& type = "RoCE v2") {
  Gid g;
  g.index = index;
  g.gid = "0000:0000:0000:0000:0000:ffff:c612:" + hex2(index) + "0b";
  g.type = type;
  g.ndev = ndev;
  return g;
}

// Adds `n` and, when it has one, its RDMA device, whose port 1 (active, Ethernet) holds `gids`.
inline void add(Inventory& inv, Nic n, std::vector<Gid> gids = {}) {
  if (n.rdma_device) {
    RdmaDevice d;
    d.name = *n.rdma_device;
    d.pci = n.pci.bdf;
    d.netdev = n.ifname;
    RdmaPort port;
    port.state = "ACTIVE";
    port.link_layer = "Ethernet";
    port.gids = std::move(gids);
    d.ports.push_back(port);
    inv.rdma.push_back(d);
  }
  inv.nics.push_back(std::move(n));
}

// One PCIe switch of server(): `gpus` GPUs, then `nics` NICs (with RDMA devices when `rdma`).
struct Switch {
  int gpus = 1;
  int nics = 1;
  int numa = 0;
  bool rdma = true;
};

// Switch s: root port 0000:00:(s+1).0 (0000:80:... on NUMA 1) → upstream port on bus
// B = 0x10 + 0x20·s → downstream ports 0000:B+1:k.0 → device k on bus B+2+k, GPUs first, then
// NICs ens{s}f{j} with RDMA devices mlx5_0, mlx5_1, ... in layout order (RoCE v2 IPv4 GID at
// index 3). With one GPU and one NIC per switch: GPU 0000:12:00.0 beside NIC 0000:13:00.0,
// 0000:32:00.0 beside 0000:33:00.0... Every bridge on the way is in inv.bridges; NUMA node 0
// has CPUs 0-15, node 1 CPUs 16-31. No management port (see add_management()).
inline Inventory server(const std::vector<Switch>& switches) {
  Inventory inv;
  int rdma = 0;
  for (std::size_t s = 0; s < switches.size(); ++s) {
    const Switch& sw = switches[s];
    int b = 0x10 + 0x20 * static_cast<int>(s);
    std::string host = sw.numa == 0 ? "00" : "80";
    std::string hb = "pci0000:" + host;
    std::string root = "0000:" + host + ":" + hex2(static_cast<int>(s) + 1) + ".0";
    std::string up = "0000:" + hex2(b) + ":00.0";
    add_bridge(inv, pci(root, hb, {}, sw.numa), true);
    add_bridge(inv, pci(up, hb, {root}, sw.numa), false);
    for (int k = 0; k < sw.gpus + sw.nics; ++k) {
      std::string down = "0000:" + hex2(b + 1) + ":" + hex2(k) + ".0";
      add_bridge(inv, pci(down, hb, {root, up}, sw.numa), false);
      PciFunction f = pci("0000:" + hex2(b + 2 + k) + ":00.0", hb, {root, up, down}, sw.numa);
      if (k < sw.gpus) {
        inv.gpus.push_back(gpu(f));
      } else {
        std::string ifname = "ens" + std::to_string(s) + "f" + std::to_string(k - sw.gpus);
        std::optional<std::string> dev;
        if (sw.rdma) dev = "mlx5_" + std::to_string(rdma++);
        add(inv, nic(ifname, f, dev), {gid(3, ifname)});
      }
    }
  }
  inv.numa.push_back(NumaNode{1, "00000000,ffff0000", "16-31"});
  inv.numa.push_back(NumaNode{0, "00000000,0000ffff", "0-15"});
  normalize(inv);
  return inv;
}

// Adds the on-board port eno1 (0000:04:00.0, MAC 3c:ec:ef:00:00:01), marked as management;
// with `rdma`, an RDMA device too.
inline void add_management(Inventory& inv, std::optional<std::string> rdma = std::nullopt) {
  Nic n = nic("eno1", pci("0000:04:00.0", "pci0000:00", {"0000:00:1c.0"}), std::move(rdma));
  n.mac = "3c:ec:ef:00:00:01";
  n.management = true;
  add(inv, n);
  normalize(inv);
}

// server() plus the management port eno1: a whole node.
inline Inventory managed_server(const std::vector<Switch>& switches) {
  Inventory inv = server(switches);
  add_management(inv);
  return inv;
}

// Makes every rail NIC of `inv` (all but the management port) a RoCE LAG as mlx5 makes one:
// NIC ensSfJ becomes bond<n> (n counting NICs in bus order) of ports ensSfJ and ensSfJp1, the
// second port's function .1 of the first's; its RDMA device's GIDs name the bond.
inline void bond_rails(Inventory& inv) {
  int n = 0;
  for (auto& nic : inv.nics) {
    if (nic.management) continue;
    std::string bond = "bond" + std::to_string(n++);
    std::string second = nic.pci.bdf.substr(0, nic.pci.bdf.size() - 1) + "1";
    nic.bond_mode = "802.3ad";
    nic.bond_ports = {{nic.ifname, nic.pci.bdf, "up", nic.speed_mbps},
                      {nic.ifname + "p1", second, "up", nic.speed_mbps}};
    for (auto& d : inv.rdma)
      if (nic.rdma_device && d.name == *nic.rdma_device) {
        d.netdev = bond;
        for (auto& port : d.ports)
          for (auto& g : port.gids)
            if (g.ndev == nic.ifname) g.ndev = bond;
      }
    nic.ifname = bond;
  }
}

// Every key at its default, two rail subnets.
inline Recipe recipe(const std::string& name = "test") {
  Recipe r = default_recipe();
  r.name = name;
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24"};
  return r;
}

// Node gpu-a01, whose management MAC is eno1's, with one address per rail.
inline NodeEntry node(std::vector<std::string> rails = {"198.18.0.11", "198.18.1.11"}) {
  NodeEntry n;
  n.hostname = "gpu-a01";
  n.mac = "3c:ec:ef:00:00:01";
  n.rails = std::move(rails);
  return n;
}

}  // namespace railyard::test
