// Writes a PXE tree (pxe_plan.h) to disk, whole or not at all: everything goes into a
// temporary directory beside TREE, which then takes TREE's place in one rename (an
// exchange when TREE exists), so a TFTP or HTTP server serving TREE never sees half of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "outcome.h"
#include "pxe_plan.h"

namespace railyard {

struct PxeTreeOptions {
  std::string image_dir;
  std::string tree_dir;
  std::string ipxe_dir = "/usr/lib/ipxe";  // where undionly.kpxe and snponly.efi are copied from; "" = nowhere
  std::int64_t source_date_epoch = 0;      // node overlays are reproducible archives
  // Who may read an overlay holding a secret (a node's token, the cluster's munge key) on
  // this host: "" its owner alone (0600), else also this group (0640), the TFTP or HTTP
  // server's. Every other file of the tree is world-readable.
  std::string secret_group;
};

struct PxeTreeResult {
  std::size_t linked = 0, copied = 0;  // image files: hard links when TREE shares the image's filesystem
  std::vector<std::string> notes;      // what the operator should know (missing iPXE binaries)
};

// Image files are verified against the manifest's sha256 as they land in the tree. An
// existing TREE is replaced only when it is empty or holds railyard-pxe.json (an earlier
// tree), never any other directory.
// The cluster's munge key from `path`: munged takes 32 to 1024 bytes (mungekey(8) makes 1024).
Outcome<std::string> read_munge_key(const std::string& path);

// The id of group `name` (--group), or why there is none.
Outcome<gid_t> find_group(const std::string& name);

Outcome<PxeTreeResult> write_pxe_tree(const PxePlan& plan, const ImageManifest& image, const PxeTreeOptions& opt);

}  // namespace railyard
