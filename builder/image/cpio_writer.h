// A directory tree as a zstd-compressed newc cpio: the initramfs format the kernel unpacks.
// Reproducible: the same tree content gives the same bytes on any host, whatever its file
// times, creation order, owners, inode numbers or CPU count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

// A character or block device to put into the archive without one existing on disk: the
// tree is built without root, yet the kernel wants e.g. /dev/console before devtmpfs.
struct DeviceNode {
  std::string path;  // relative, like "dev/console"
  bool block = false;
  unsigned mode = 0600;
  unsigned major = 0, minor = 0;
};

struct SymlinkNode {
  std::string path;    // relative, like "init"
  std::string target;  // as stored, like "/sbin/init"
};

struct CpioOptions {
  std::int64_t source_date_epoch = 0;  // no mtime in the archive is later than this
  int zstd_level = 3;
  // zstd workers; 0 = one per CPU. Always at least one: zstd's multithreaded output is the
  // same for any worker count, but differs from its single-threaded mode.
  int zstd_threads = 0;
  std::vector<DeviceNode> device_nodes;
  std::vector<SymlinkNode> symlinks;  // added unless the tree has that path already
  // Entries whose path starts with one of these are left out ("boot/" keeps boot itself).
  std::vector<std::string> exclude_prefixes;
  // Split into several archives of at most this much file data each (0: one archive).
  // The kernel unpacks concatenated archives in order, so a boot loader can pass the parts
  // as separate initrds; no part boundary cuts a hard-link group.
  std::uint64_t part_bytes = 0;
  // Each entry's owner and group as the tree has them (an image: the packages' system users
  // own their state, munge's key directory, slurm's spool); else root's, as for overlays
  // staged by whoever runs railyard.
  bool keep_owners = false;
};

struct CpioResult {
  std::vector<std::string> files;   // the archives written, in unpacking order
  std::vector<std::string> sha256;  // of each archive, taken as it was written
  std::size_t entries = 0;
  std::uint64_t content_bytes = 0;  // file data archived, before compression
  std::vector<std::string> notes;   // what was left out, and why
};

// Entries in byte order of their paths (so parents come first), without the root itself;
// owners 0:0; mtimes min(file, epoch), seconds only; inodes numbered in that order and
// device 0:0, so nothing of the build host leaks. Symlinks are stored as links. Hard links
// stay hard links the way newc and the kernel expect: every name carries the same inode
// and link count, and only the last name in the archive carries the data. The link count
// is that within the tree, never the host's. Device nodes, sockets and FIFOs on disk are
// skipped with a note (`device_nodes` adds the ones the image needs).
// With part_bytes set and more data than that, the parts are named after `out_path` with
// "-00", "-01"... before ".cpio.zst" (or appended); otherwise the one archive is out_path.
Outcome<CpioResult> write_cpio_zstd(const std::string& tree, const std::string& out_path, const CpioOptions& options);

}  // namespace railyard
