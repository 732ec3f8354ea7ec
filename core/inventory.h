// What discovery found on a node: GPUs, NICs, RDMA devices, NVMe controllers, NUMA nodes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pci.h"

namespace railyard {

struct Gid {
  int index = 0;
  std::string gid;   // "0000:0000:0000:0000:0000:ffff:c612:000b"
  std::string type;  // "RoCE v2" or "IB/RoCE v1"
  std::string ndev;  // interface the GID belongs to (a VLAN device for tagged rails)
  bool ipv4_mapped() const;
};

struct RdmaPort {
  int port = 1;
  std::string state;       // "ACTIVE", "DOWN"... (the number stripped)
  std::string phys_state;  // "LinkUp"...
  std::string link_layer;  // "Ethernet" or "InfiniBand"
  std::vector<Gid> gids;
};

struct RdmaDevice {
  std::string name;
  std::optional<std::string> pci;  // absent for Soft-RoCE and other virtual devices
  std::string netdev;              // the interface it serves (port 1)
  std::vector<RdmaPort> ports;
  const RdmaPort* port(int n) const;
};

struct Gpu {
  PciFunction pci;
};

// A port of a bonded NIC (a RoCE LAG: both ports of one card in a bond that one RDMA
// device, mlx5_bond_N, serves). Its PCI function, link and speed as the port sees them.
struct BondPort {
  std::string ifname;
  std::string pci;
  std::string operstate;
  int speed_mbps = -1;
};

struct Nic {
  std::string ifname;  // a bonded NIC: the bond ("bond0"), whose ports are bond_ports
  PciFunction pci;
  std::string mac;
  std::string operstate;
  int speed_mbps = -1;  // -1: unknown (link down, virtio)
  int mtu = 0;
  bool virtio = false;
  std::optional<std::string> rdma_device;
  int rdma_port = 1;
  bool management = false;
  // RoCE LAG: the bond's mode ("802.3ad") and its ports, ordered by PCI address; `pci` is
  // then the first port's function (the one the RDMA device hangs off). Empty otherwise.
  std::string bond_mode;
  std::vector<BondPort> bond_ports;
  bool bonded() const { return !bond_ports.empty(); }
  // udev's stable names for the interface, by its place on the bus whatever it is called now
  // (a .link file's name, net.ifnames=0's eth0): ID_PATH ("pci-0000:1b:00.0") and
  // ID_NET_NAME_PATH ("enp27s0f0np0"). None where udev has none (a bond, no udev).
  std::optional<std::string> id_path;
  std::optional<std::string> net_name_path;
  // DCB on this interface is a lab stand-in's, emulated in software ("railyard-lab-qos 1.0",
  // from its railyard_lab_qos/ files); none on hardware.
  std::optional<std::string> dcb_emulated_by;
  // The bridge or bond this interface is enslaved to ("" when none; a RoCE LAG's ports are
  // folded into their bond above). An enslaved interface carries no address: never a rail.
  std::string master;
};

struct NvmeController {
  std::string name;
  std::string transport;  // pcie, rdma, tcp
  std::string address;
  std::string subsysnqn;
  std::string state;
  std::string model;
  std::optional<std::string> pci;
};

struct NumaNode {
  int id = 0;
  std::string cpumap;
  std::string cpulist;
};

struct Inventory {
  std::vector<Gpu> gpus;  // sorted by PCI address (CUDA_DEVICE_ORDER=PCI_BUS_ID)
  std::vector<Nic> nics;  // sorted by PCI address
  std::vector<RdmaDevice> rdma;
  std::vector<NvmeController> nvme;
  std::vector<NumaNode> numa;
  std::map<std::string, PciFunction> bridges;  // every bridge on a GPU's or NIC's path, by address

  const RdmaDevice* rdma_device(const std::string& name) const;
  const Nic* nic(const std::string& ifname) const;
  const Nic* management() const;
};

// The lowest index of a RoCE v2, IPv4-mapped GID whose interface is `netdev` (with
// `or_vlans`, also one of its VLAN devices `netdev.N`, for discovery's per-NIC view).
std::optional<int> roce_v2_gid_index(const RdmaDevice& dev, int port, const std::string& netdev, bool or_vlans);

// The RoCE v2 GID that carries `ipv4` ("198.18.0.100"), on port 1 of whichever RDMA device
// has it: where a responder serves that address (a Soft-RoCE device has a GID per address of
// its interface and of its VLAN devices).
struct GidRef {
  std::string device;
  int index = 0;
};
std::optional<GidRef> roce_v2_gid_of(const Inventory& inv, const std::string& ipv4);

// Sorts GPUs and NICs by PCI address: the order every later step relies on.
void normalize(Inventory& inv);

nlohmann::ordered_json to_json(const PciFunction& p);
nlohmann::ordered_json to_json(const Inventory& inv);

}  // namespace railyard
