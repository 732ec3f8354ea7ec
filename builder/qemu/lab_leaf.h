// The lab leaf: the storage-target VM doubles as the rails' leaf switch. Its guest bridges
// the ports (frames cross between rails there; LLDP, link-local, never does) and runs one
// lldpd per port, configured from `railyard fabric leaf-config`'s JSON for the lab's node,
// so that the lab runs what the tool emits for a leaf (leaf-pfc=P, no-lldp change what it
// emits the way a misconfigured switch would).
#pragma once

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
Outcome<std::vector<LabLeafFile>> lab_leaf_files(const Recipe& recipe, const NodeEntry& node,
                                                 const std::vector<std::string>& port_macs, const LabFaults& faults);

}  // namespace railyard
