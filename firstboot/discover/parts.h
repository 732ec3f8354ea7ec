// The pieces of discovery, one file each; discover.cc puts them together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inventory.h"

namespace railyard::discovery {

// Syspaths of a device class's devices (/sys/class/<subsystem>), sorted. A libudev
// enumeration gives the same list at three times the system calls (it canonicalises every
// path component), which under umockdev was most of the agent's time.
std::vector<std::string> scan(const char* subsystem);

// Syspaths of every PCI function, from /sys/bus/pci/devices: one readlink each.
std::vector<std::string> pci_syspaths();

// A PCI function read from its syspath ("/sys/devices/pci0000:15/.../0000:1b:00.0").
std::optional<PciFunction> read_pci_function(const std::string& syspath);
// The PCI function a class device (net, infiniband, nvme) belongs to, through its `device`
// link; virtio's extra level (net → virtioN → PCI) is walked.
std::optional<std::string> pci_syspath_of(const std::string& class_syspath);

std::vector<Gpu> gpus(const std::vector<std::string>& pci_syspaths);
std::vector<Nic> nics();
// RoCE LAG: an RDMA device with a PCI function whose interface is a bond of that function
// and its sibling (mlx5_bond_N over bondN) makes the bond one NIC, in place of its ports.
void fold_bonds(std::vector<Nic>& nics, const std::vector<RdmaDevice>& rdma);
std::vector<RdmaDevice> rdma_devices();
// Bytes as sysfs writes a GID or a node GUID: groups of four hex digits joined by ':'
// ("fe80:0000:0000:0000:5054:00ff:fe12:3401").
std::string hex_groups(const uint8_t* bytes, size_t n);
// A GID table entry as libibverbs returns it (ibv_query_gid_table), in sysfs's words.
Gid verbs_gid(int index, const uint8_t (&raw)[16], bool roce_v2, const std::string& ndev);
std::vector<NvmeController> nvme_controllers();
std::vector<NumaNode> numa_nodes();

}  // namespace railyard::discovery
