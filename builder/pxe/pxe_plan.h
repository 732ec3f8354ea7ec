// What `railyard pxe` lays out for one image and a node inventory, as data: where each
// file goes in the tree and what each node boots. Pure, so the layout and every rendered
// script can be tested without a disk.
//
//   TREE/boot.ipxe                 chains to pxe/<MAC>.ipxe, or says the MAC is unknown
//   TREE/pxe/52-54-00-00-00-01.ipxe  one per node: image kernel + initrds + its overlay
//   TREE/image/…                   the image's artifacts and manifest.json
//   TREE/nodes/node-<host>.cpio.zst  /etc/railyard/node.toml, /etc/hostname and, with a
//                                  receiver secret, the node's own report token; with
//                                  --munge-key, the cluster's munge key (then 0600, or
//                                  0640 and --group's, on the PXE host: pxe_tree.h)
//   TREE/dnsmasq-railyard.conf     proxy DHCP + TFTP, chainloading iPXE
//   TREE/railyard-pxe.json         what the tree holds; marks it as railyard's to replace
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/image_manifest.h"
#include "node_inventory.h"
#include "outcome.h"

namespace railyard {

inline constexpr const char* kPxeImageDir = "image";
inline constexpr const char* kPxeScriptsDir = "pxe";
inline constexpr const char* kPxeNodesDir = "nodes";
inline constexpr const char* kPxeBootScript = "boot.ipxe";
inline constexpr const char* kPxeDnsmasqFile = "dnsmasq-railyard.conf";
inline constexpr const char* kPxeTreeFile = "railyard-pxe.json";
// iPXE itself, for firmware that PXE-boots without it (Debian's package `ipxe`).
inline constexpr const char* kIpxeBios = "undionly.kpxe";
inline constexpr const char* kIpxeUefi = "snponly.efi";

struct PxeNode {
  NodeEntry node;
  std::string mac_hyphens;  // "52-54-00-00-00-01", as iPXE's ${mac:hexhyp} prints it
  std::string script;       // "pxe/52-54-00-00-00-01.ipxe"
  std::string overlay;      // "nodes/node-lab-node01.cpio.zst"
  std::string token;        // its own report token (railyard node-token); "" = none written
};

struct PxePlan {
  std::string recipe_name;
  std::string kernel_version;
  std::string kernel;                // "image/vmlinuz"
  std::vector<std::string> initrds;  // "image/rootfs.cpio.zst", … in unpacking order
  std::vector<std::string> cmdline;  // the image's, as built
  std::vector<PxeNode> nodes;        // in inventory order
  std::string base_url;              // iPXE fetches boot.ipxe from here; "" = TFTP
  std::string proxy_subnet;          // network address for dnsmasq's proxy range; "" = unknown
  std::string token_file;            // where a node's token lands (join.token_file); "" = no tokens
  std::string munge_key;             // the cluster's munge key, in every overlay; "" = none
};

std::string mac_hyphens(const std::string& mac);

// Fails when the image's command line holds something an iPXE script would expand or
// split ($, quotes, backslashes, spaces), naming the manifest key.
Outcome<PxePlan> plan_pxe(const ImageManifest& image, const std::vector<NodeEntry>& nodes, const std::string& base_url,
                          const std::string& proxy_subnet);

// Where each node's own token goes in its overlay: the recipe's join.token_file, which must
// stay inside the root (no ".." component) and not be one of the overlay's other files.
std::optional<std::string> check_token_path(const std::string& token_file);

// /etc/railyard/node.toml as the agent reads it (core/node_inventory.h: parse_node_identity).
std::string render_node_identity(const NodeEntry& node);

// railyard-pxe.json: the image, and every node's MAC, script and overlay.
std::string render_tree_index(const PxePlan& plan, const ImageManifest& image);

}  // namespace railyard
