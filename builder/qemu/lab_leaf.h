// The lab leaf: the storage-target VM doubles as the rails' leaf switch. Its guest bridges
// the ports (frames cross between rails there; LLDP, link-local, never does) and runs one
// lldpd per port, configured from `railyard fabric leaf-config`'s JSON for the lab's node,
// so that the lab runs what the tool emits for a leaf (leaf-pfc=P, no-lldp change what it
// emits the way a misconfigured switch would).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab_faults.h"
#include "node_inventory.h"
#include "outcome.h"
#include "recipe.h"

namespace railyard {

// A file for the leaf's identity initrd, relative to the guest's root.
struct LabLeafFile {
  std::string path;
  std::string content;
};

// Where the leaf's files go in the guest; overlays/lab-qemu's qemu-leaf reads them.
inline constexpr const char* kLabLeafDir = "etc/railyard/lab-leaf";

// lldpd's configuration (lldpcli commands) for one leaf port: `leaf` is one document of
// leaf-config's output, `port` one of its ports[] (null port ID: lldpd's interface name).
// PFC, the maximum frame size and the VLANs go as the 802.1/802.3 TLVs lldpd sends as custom
// TLVs; `pfc_priority` >= 0 advertises that priority instead of the leaf's (leaf-pfc=P).
std::string lldpd_config(const nlohmann::json& leaf, const nlohmann::json& port, const std::string& ifname_pattern,
                         int pfc_priority = -1);

// Everything the leaf needs: leaf-config's JSON per leaf (as emitted), one lldpd
// configuration per port, and `ports`, a line per leaf port: its MAC, the rail whose leaf it
// is, and its configuration's name ("-": no LLDP). Port k of the leaf is rail k's;
// `port_macs` are the leaf's port NICs.
//
// Routed rails (routing.mode = "bgp-unnumbered") need `routed`: then each rail's leaf is a
// router of its own in the guest (a network namespace running zebra and bgpd with the
// frr.conf leaf-config writes for it), peering with the node and with the storage target,
// which is a routed host beside the leaves (lab_leaf_routed_files).
struct LabRoutedLeaf {
  NodeEntry target;              // the storage target's inventory entry: its rail /32s, AS, VTEP
  std::string storage_port_mac;  // rail 0's leaf port the target's storage NIC is cabled to
  std::string storage_ifname;    // the target's storage NIC in the guest (enp0s6)
};
Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const NodeEntry& node,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults,
                                                 const std::optional<LabRoutedLeaf>& routed = std::nullopt);
// Several nodes on the same leaves (layer 2 rails only): port k is rail k mod R of node k / R,
// R = port_macs.size() / nodes.size(), each with the LLDP port its inventory entry names.
// With rail-loss or rail-slow, `shaping` holds a line per shaped port: its MAC, then
// netem's arguments.
Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const std::vector<NodeEntry>& nodes,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults,
                                                 const std::optional<LabRoutedLeaf>& routed = std::nullopt);

// The routed parts, in kLabLeafDir: `routed`, a line per rail (the rail, its leaf's frr.conf
// or "-" for no bgpd, the leaf's port names toward the node and toward the target);
// `storage-port`, the MAC of rail 0's port toward the target's storage NIC; the target's own
// FRR files (`target-frr.conf`, `target-daemons`, what the agent would write for it: the
// storage NIC as rail 0, veths rail1.. to the other leaves); and `target.env`, the target's
// rail addresses beyond rail 0 and its tenant side beyond what railyard-firstboot target
// makes: another VNI from its VTEP holding the node's isolation probe address, and whether
// the node's VNI leaks to it (tenant-leak).
Outcome<std::vector<LabLeafFile>> lab_leaf_routed_files(const Recipe& recipe, const NodeEntry& node,
                                                        const LabRoutedLeaf& routed, int rails,
                                                        const LabFaults& faults);

// The kernel modules the storage-target VM loads at early boot (its kernel command line's
// modules_load=, systemd-modules-load): target_modules() for the recipe, and what the leaf
// itself makes (a bridge for layer 2 rails; for routed ones, the veths to the target). Loaded
// beside udev's coldplug instead of after it, once the target's agent or the leaf asks
// (about 10 s under TCG); the agent still loads any that failed, and reports it.
std::vector<std::string> lab_target_modules(const Recipe& recipe, bool routed);

}  // namespace railyard
