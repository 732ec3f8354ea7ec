// Unpacking a fetched archive (a driver bundle, a vendor root filesystem) into a directory
// with libarchive, never writing outside it.
#pragma once

#include <cstddef>
#include <string>

#include "outcome.h"

namespace railyard {

struct UnpackOptions {
  // Keep owners, ACLs and extended attributes (file capabilities) as archived: a root
  // filesystem needs them; a bundle's files belong to whoever unpacks them.
  bool root_filesystem = false;
};

struct UnpackResult {
  std::size_t entries = 0;
};

// Any format and compression libarchive reads. Absolute names, ".." and paths through a
// symlink already unpacked are refused, so nothing lands outside `dir`.
Outcome<UnpackResult> unpack_archive(const std::string& archive_path, const std::string& dir,
                                     const UnpackOptions& options);

}  // namespace railyard
