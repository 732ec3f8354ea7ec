// Who a lab VM is: its host name, the MACs of its NICs, its SMBIOS UUID and, when the
// operator's inventory names it, its node identity. The identity reaches the guest the way
// `railyard pxe` hands it to a server: a small overlay initrd after the image's own, holding
// /etc/hostname and /etc/railyard/node.toml.
#pragma once

#include "pxe/pxe_plan.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "node_inventory.h"
#include "outcome.h"

namespace railyard {

// A file of a lab VM's identity overlay, relative to the guest's root.
struct LabFile {
  std::string path;
  std::string content;
  unsigned mode = 0644;
};

struct LabIdentity {
  std::string hostname;
  std::string management_mac;
  std::optional<NodeEntry> node;  // /etc/railyard/node.toml when present
  // More files for the overlay (the lab leaf's and the lab Slurm cluster's configuration, the
  // munge key); their directories must not exist in the image as anything but directories.
  std::vector<LabFile> files;
};

// A lab VM's identity where no inventory names it: the rail addresses the lab recipe
// implies, as recipes/inventories/qemu-lab.toml gives them: host 11 of each rail subnet for
// the node; for the storage target its [[nvmeof]] address on a storage rail and host 100
// elsewhere.
enum class LabRole { node, storage_target };
NodeEntry implied_identity(const Recipe& recipe, const std::string& hostname, const std::string& mac, LabRole role);

// The recipe an image was built from (/etc/railyard/recipe.toml inside it), with the
// image directory's initrd and that path naming it in errors.
Outcome<Recipe> read_image_recipe(const std::string& image_dir);

// Rail k's MAC: the management MAC with its fourth byte 0x10 + k (52:54:00:00:00:01 → rail 2
// 52:54:00:12:00:01), so that every NIC of a lab is told apart by its VM and rail.
std::vector<std::string> rail_macs(const std::string& management_mac, int rails);
// The lab leaf's port k: fourth byte 0x30 + k (its storage NIC is its rail 0's MAC).
std::vector<std::string> leaf_port_macs(const std::string& management_mac, int ports);
// A stable SMBIOS system UUID from the management MAC: the agent derives the node's NVMe
// host identity from it, as on a server.
std::string smbios_uuid(const std::string& management_mac);
// /etc/railyard/node.toml for a node: render_node_identity(), shared with railyard pxe.

// The overlay initrd (zstd newc cpio) at `out_path`, built in `scratch_dir`: /etc/hostname
// and, with a node, /etc/railyard/node.toml as railyard pxe renders it. Only paths
// that are directories in every image (etc/, etc/railyard/): an entry of another type at a
// path the image holds as a symbolic link (lib → usr/lib) would replace the link.
Status write_identity_initrd(const LabIdentity& id, const std::string& scratch_dir, const std::string& out_path);

}  // namespace railyard
