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

struct CpioOptions {
  std::int64_t source_date_epoch = 0;  // no mtime in the archive is later than this
  int zstd_level = 3;
  // zstd workers; 0 = one per CPU. Always at least one: zstd's multithreaded output is the
  // same for any worker count, but differs from its single-threaded mode.
  int zstd_threads = 0;
  std::vector<DeviceNode> device_nodes;
};

struct CpioResult {
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
Outcome<CpioResult> write_cpio_zstd(const std::string& tree, const std::string& out_path, const CpioOptions& options);

}  // namespace railyard
