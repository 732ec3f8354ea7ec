// Packages apt downloads while a build installs them, kept for the next build in the cache's
// downloads/packages/ under the names apt gives them. A driver release that changes one
// package then downloads that one package, not its whole dependency closure again.
//
// apt trusts any file of the right size in its archive directory (it checks hashes only of
// what it downloads), so a kept package is lent to apt only when its SHA-256 is the one the
// image's own package index names for that file.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "image/openssl_hasher.h"
#include "outcome.h"

namespace railyard {

// The file name apt stores a package under in /var/cache/apt/archives:
// NAME_VERSION_ARCH.deb, with '_', ':', '%' and unprintable bytes written as %xx.
std::string apt_archive_name(std::string_view package, std::string_view version, std::string_view arch);

// The package stanzas of a Packages index whose apt_archive_name is in `wanted`: name ->
// SHA-256 values (more than one when two repositories carry different files under the same
// name and version).
void add_index_digests(std::string_view packages_index, const std::set<std::string>& wanted,
                       std::map<std::string, std::set<std::string>>& out);

struct PoolLoan {
  std::size_t packages = 0;
  std::uint64_t bytes = 0;
  std::set<std::string> names;  // lent, so not kept again
};

class PackagePool {
 public:
  PackagePool(std::string dir, OpenSslHasher& hasher) : dir_(std::move(dir)), hasher_(hasher) {}

  // Copies (or links) into ROOT/var/cache/apt/archives every kept package whose SHA-256 is
  // the one ROOT's package index (var/lib/apt/lists/*_Packages) gives its name. A kept file
  // that differs is left out: apt downloads the right one.
  Outcome<PoolLoan> lend(const std::string& root);
  // Keeps the packages apt downloaded into ROOT's archive directory (each renamed into the
  // pool whole), then empties that directory of packages, lent ones included. Returns how
  // many were new to the pool.
  Outcome<std::size_t> keep(const std::string& root, const PoolLoan& loan);

 private:
  // The index read for the last loan: the drivers and agent stages of one build lend from
  // the same lists (some 50 MB), read once while they are unchanged.
  struct IndexMemo {
    std::string lists;  // each *_Packages file's name, size and mtime
    std::set<std::string> wanted;
    std::map<std::string, std::set<std::string>> digests;
  };
  const std::map<std::string, std::set<std::string>>& index_digests(const std::string& root,
                                                                    const std::set<std::string>& wanted);
  std::string dir_;
  OpenSslHasher& hasher_;
  IndexMemo memo_;
};

}  // namespace railyard
