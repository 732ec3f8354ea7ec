// A directory tree as data: each entry's path, type, mode and content digest, in path
// order. Cache entries record it to verify their output; overlays are keyed by its digest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "openssl_hasher.h"
#include "outcome.h"

namespace railyard {

struct TreeEntry {
  enum class Type { file, directory, symlink, other };
  std::string path;  // relative to the root, '/'-separated, never "." or "./x"
  Type type = Type::file;
  unsigned mode = 0;       // permission bits with setuid/setgid/sticky (07777)
  std::uint64_t size = 0;  // regular files
  std::string digest;      // regular files: hex, of the scan's TreeDigest
  std::string target;      // symlinks, as stored (never followed)
  bool operator==(const TreeEntry&) const = default;
};

char type_letter(TreeEntry::Type t);

// SHA-256 where the listing feeds a key (overlays); XXH3-128 where it only has to find damage
// (cache entries, content_digest.h).
enum class TreeDigest { sha256, xxh128 };

// Owners and times are left out on purpose: stages normalise them (root, SOURCE_DATE_EPOCH),
// so a fresh checkout or a `touch` must not change a key. Files are hashed on every core.
Outcome<std::vector<TreeEntry>> scan_tree(const std::string& root, OpenSslHasher& hasher,
                                          TreeDigest digest = TreeDigest::sha256);

// One line per entry ("f 0644 etc/motd <sha256>"); control characters in names escaped so
// that no name can forge another line. What overlay digests are taken over.
std::string tree_listing(const std::vector<TreeEntry>& entries);

}  // namespace railyard
