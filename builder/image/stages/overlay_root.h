// The image root of a build that starts from a cache entry: an overlayfs whose lower layer
// is the entry itself (read only, never copied) and whose upper layer, in the work
// directory, takes what the later stages change. Reusing a 700 MiB base costs a mount
// instead of a copy, and no stage can alter the entry through it.
//
// The mount lives only in the build's own mount namespace: nobody else sees it, and a build
// killed at any point leaves no mount behind (the namespace dies with its last process).
#pragma once

#include <memory>
#include <string>

#include "outcome.h"

namespace railyard {

// Moves this process into a mount namespace of its own, with nothing propagating back to the
// host's. Only works while the process has a single thread (the kernel's rule) and as root.
Status enter_private_mount_namespace();

class OverlayRoot {
 public:
  // `layers` (created) holds the upper and work directories; it must be on a filesystem
  // overlayfs accepts as upper (ext4, xfs, btrfs, tmpfs; not overlayfs itself). `merged`
  // is created when absent and must be empty.
  static Outcome<std::unique_ptr<OverlayRoot>> mount(const std::string& lower, const std::string& layers,
                                                     const std::string& merged);
  ~OverlayRoot();  // detached, so a process still inside it cannot keep it from going
  OverlayRoot(const OverlayRoot&) = delete;
  OverlayRoot& operator=(const OverlayRoot&) = delete;

 private:
  explicit OverlayRoot(std::string merged) : merged_(std::move(merged)) {}
  std::string merged_;
};

// The mount's option string; empty when a path holds a character that overlayfs's option
// parser would split on (',', ':', '\'), which the caller then reports.
std::string overlay_options(const std::string& lower, const std::string& upper, const std::string& work);

}  // namespace railyard
