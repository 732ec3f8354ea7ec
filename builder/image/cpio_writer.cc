#include "cpio_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <utility>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "openssl_hasher.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

struct Item {
  std::string path;    // in the archive
  std::string source;  // on disk; "" for synthesized device nodes
  unsigned type = 0;   // AE_IFREG, AE_IFDIR, ...
  unsigned perm = 0;
  unsigned uid = 0, gid = 0;
  std::int64_t mtime = 0;
  std::uint64_t size = 0;
  std::string target;
  unsigned rdev_major = 0, rdev_minor = 0;
  // Where the host keeps it: only to find hard links, never written out.
  dev_t host_dev = 0;
  ino_t host_ino = 0;
  nlink_t host_nlink = 1;
  // In the archive:
  std::uint32_t ino = 0;
  unsigned nlink = 1;
  bool carries_data = true;
};

// The newc header has eight hex digits for a file's size.
constexpr std::uint64_t kNewcMaxSize = 0xffffffffULL;

Outcome<std::vector<Item>> collect(const std::string& tree, const CpioOptions& o, std::vector<std::string>& notes) {
  using Result = Outcome<std::vector<Item>>;
  std::vector<Item> items;
  std::error_code ec;
  fs::recursive_directory_iterator it(tree, fs::directory_options::none, ec), end;
  if (ec) return Result::fail(tree + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Result::fail(tree + ": " + ec.message());
    Item item;
    item.source = it->path().string();
    item.path = it->path().lexically_relative(tree).generic_string();
    if (std::any_of(o.exclude_prefixes.begin(), o.exclude_prefixes.end(),
                    [&](const std::string& p) { return item.path.starts_with(p); }))
      continue;
    struct stat st {};
    if (::lstat(item.source.c_str(), &st) != 0) return Result::fail(item.source + ": " + std::strerror(errno));
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
      notes.push_back(item.path + ": special file not archived (devtmpfs and the services create these at boot)");
      continue;
    }
    item.type = S_ISDIR(st.st_mode) ? AE_IFDIR : S_ISLNK(st.st_mode) ? AE_IFLNK : AE_IFREG;
    item.perm = st.st_mode & 07777;
    if (o.keep_owners) {
      item.uid = st.st_uid;
      item.gid = st.st_gid;
    }
    item.mtime = std::min<std::int64_t>(st.st_mtim.tv_sec, o.source_date_epoch);
    item.host_dev = st.st_dev;
    item.host_ino = st.st_ino;
    item.host_nlink = st.st_nlink;
    if (item.type == AE_IFREG) {
      item.size = static_cast<std::uint64_t>(st.st_size);
      if (item.size > kNewcMaxSize)
        return Result::fail(item.source + ": " + std::to_string(item.size) +
                            " bytes, over the 4 GiB a newc cpio entry can hold");
    }
    if (item.type == AE_IFLNK) {
      item.perm = 0777;
      item.target = fs::read_symlink(item.source, ec).string();
      if (ec) return Result::fail(item.source + ": " + ec.message());
    }
    items.push_back(std::move(item));
  }
  for (const auto& d : o.device_nodes) {
    Item item;
    item.path = d.path;
    item.type = d.block ? AE_IFBLK : AE_IFCHR;
    item.perm = d.mode & 07777;
    item.mtime = o.source_date_epoch;
    item.rdev_major = d.major;
    item.rdev_minor = d.minor;
    items.push_back(std::move(item));
  }
  for (const auto& l : o.symlinks) {
    if (std::any_of(items.begin(), items.end(), [&](const Item& i) { return i.path == l.path; })) continue;
    Item item;
    item.path = l.path;
    item.type = AE_IFLNK;
    item.perm = 0777;
    item.mtime = o.source_date_epoch;
    item.target = l.target;
    items.push_back(std::move(item));
  }
  // Byte order: parents before children, and no dependence on the host's locale.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.path < b.path; });
  for (std::size_t i = 1; i < items.size(); ++i)
    if (items[i].path == items[i - 1].path)
      return Result::fail(items[i].path + ": a device node replaces a file in the tree");
  return items;
}

// Inode numbers by position; hard-link groups share the first name's number.
void number_inodes(std::vector<Item>& items) {
  std::map<std::pair<dev_t, ino_t>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].ino = static_cast<std::uint32_t>(i + 1);
    if (items[i].type == AE_IFREG && items[i].host_nlink > 1)
      groups[{items[i].host_dev, items[i].host_ino}].push_back(i);
  }
  for (const auto& [id, names] : groups) {
    if (names.size() < 2) continue;  // its other names lie outside the tree
    for (std::size_t n : names) {
      items[n].ino = items[names.front()].ino;
      items[n].nlink = static_cast<unsigned>(names.size());
      items[n].carries_data = n == names.back();
    }
  }
}

using Archive = std::unique_ptr<struct archive, decltype(&archive_write_free)>;

std::string why(struct archive* a, const std::string& context) {
  const char* e = archive_error_string(a);
  return context + ": " + (e ? e : "libarchive error");
}

constexpr std::size_t kBlock = 1 << 20;

// `buffer` holds kBlock bytes, reused for every file.
Status copy_data(struct archive* a, const Item& item, char* buffer) {
  int fd = ::open(item.source.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Status::fail(item.source + ": " + std::strerror(errno));
  std::uint64_t total = 0;
  Status status = success();
  for (;;) {
    ssize_t got = ::read(fd, buffer, kBlock);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) status = Status::fail(item.source + ": read: " + std::strerror(errno));
    if (got <= 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > item.size) break;
    if (archive_write_data(a, buffer, static_cast<std::size_t>(got)) != got) {
      status = Status::fail(why(a, item.path));
      break;
    }
  }
  ::close(fd);
  if (status.ok() && total != item.size) return Status::fail(item.source + ": changed size while being archived");
  return status;
}

Status write_item(struct archive* a, const Item& item, char* buffer) {
  std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(e.get(), item.path.c_str());
  archive_entry_set_filetype(e.get(), item.type);
  archive_entry_set_perm(e.get(), static_cast<mode_t>(item.perm));
  archive_entry_set_uid(e.get(), item.uid);
  archive_entry_set_gid(e.get(), item.gid);
  archive_entry_set_mtime(e.get(), static_cast<time_t>(item.mtime), 0);
  archive_entry_set_dev(e.get(), 0);
  archive_entry_set_ino(e.get(), item.ino);
  archive_entry_set_nlink(e.get(), item.type == AE_IFDIR ? 2 : item.nlink);
  archive_entry_set_size(e.get(), item.carries_data ? static_cast<la_int64_t>(item.size) : 0);
  if (item.type == AE_IFLNK) archive_entry_set_symlink(e.get(), item.target.c_str());
  if (item.type == AE_IFCHR || item.type == AE_IFBLK) {
    archive_entry_set_rdevmajor(e.get(), item.rdev_major);
    archive_entry_set_rdevminor(e.get(), item.rdev_minor);
  }
  if (archive_write_header(a, e.get()) != ARCHIVE_OK) return Status::fail(why(a, item.path));
  if (item.type == AE_IFREG && item.carries_data && item.size > 0) return copy_data(a, item, buffer);
  return success();
}

// Where a new part may start: not inside a hard-link group (its data rides on its last name).
std::vector<bool> allowed_cuts(const std::vector<Item>& items) {
  std::vector<bool> ok(items.size() + 1, true);
  std::map<std::uint32_t, std::size_t> first;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].nlink > 1 && items[i].type == AE_IFREG) {
      auto [it, fresh] = first.emplace(items[i].ino, i);
      if (!fresh)
        for (std::size_t k = it->second + 1; k <= i; ++k) ok[k] = false;
    }
  return ok;
}

std::string part_name(const std::string& out_path, std::size_t n) {
  std::string suffix = n < 10 ? "-0" + std::to_string(n) : "-" + std::to_string(n);
  const std::string ext = ".cpio.zst";
  if (out_path.ends_with(ext)) return out_path.substr(0, out_path.size() - ext.size()) + suffix + ext;
  return out_path + suffix;
}

// Where libarchive's output goes: the file, and a SHA-256 of every byte on the way.
struct Sink {
  int fd = -1;
  Sha256Stream sha256;
};

la_ssize_t sink_write(struct archive* a, void* data, const void* buffer, size_t n) {
  auto* sink = static_cast<Sink*>(data);
  const char* p = static_cast<const char*>(buffer);
  for (size_t left = n; left > 0;) {
    ssize_t w = ::write(sink->fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      archive_set_error(a, errno, "write: %s", std::strerror(errno));
      return -1;
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  sink->sha256.update(buffer, n);
  return static_cast<la_ssize_t>(n);
}

Status write_archive(const std::vector<Item>& items, std::size_t begin, std::size_t end, const std::string& path,
                     const CpioOptions& o, CpioResult& result) {
  Archive a(archive_write_new(), &archive_write_free);
  int threads =
      o.zstd_threads > 0 ? o.zstd_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (archive_write_set_format_cpio_newc(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_zstd(a.get()) != ARCHIVE_OK ||  // WARN would mean an external zstd
      archive_write_set_filter_option(a.get(), "zstd", "compression-level", std::to_string(o.zstd_level).c_str()) !=
          ARCHIVE_OK ||
      archive_write_set_filter_option(a.get(), "zstd", "threads", std::to_string(threads).c_str()) != ARCHIVE_OK ||
      // Write the compressed stream in 1 MiB blocks rather than 10 KiB ones.
      archive_write_set_bytes_per_block(a.get(), 1 << 20) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK)
    return Status::fail(why(a.get(), path));
  Sink sink;
  sink.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (sink.fd < 0) return Status::fail(path + ": " + std::strerror(errno));
  struct CloseFd {  // on the way out of a failure; the success path closes and checks
    int& fd;
    ~CloseFd() {
      if (fd >= 0) ::close(fd);
    }
  } close_fd{sink.fd};
  if (archive_write_open2(a.get(), &sink, nullptr, sink_write, nullptr, nullptr) != ARCHIVE_OK)
    return Status::fail(why(a.get(), path));
  auto buffer = std::make_unique<char[]>(kBlock);
  for (std::size_t i = begin; i < end; ++i) {
    auto written = write_item(a.get(), items[i], buffer.get());
    if (!written.ok()) return Status::fail(written, path);
    ++result.entries;
    if (items[i].carries_data) result.content_bytes += items[i].size;
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return Status::fail(why(a.get(), path));
  int fd = std::exchange(sink.fd, -1);
  if (::close(fd) != 0) return Status::fail(path + ": close: " + std::strerror(errno));
  result.files.push_back(path);
  result.sha256.push_back(sink.sha256.hex());
  return success();
}

}  // namespace

Outcome<CpioResult> write_cpio_zstd(const std::string& tree, const std::string& out_path, const CpioOptions& o) {
  using Result = Outcome<CpioResult>;
  CpioResult result;
  auto items = collect(tree, o, result.notes);
  if (!items.ok()) return Result::fail(items.error());
  number_inodes(*items);

  std::uint64_t total = 0;
  for (const auto& item : *items) total += item.carries_data ? item.size : 0;
  if (o.part_bytes == 0 || total <= o.part_bytes) {
    auto s = write_archive(*items, 0, items->size(), out_path, o, result);
    if (!s.ok()) return Result::fail(s.error());
    return result;
  }
  std::vector<bool> cut_ok = allowed_cuts(*items);
  std::size_t begin = 0;
  while (begin < items->size()) {
    std::size_t end = begin;
    std::uint64_t bytes = 0;
    std::size_t last_cut = begin;  // the furthest allowed cut that keeps the part in budget
    while (end < items->size()) {
      std::uint64_t next = (*items)[end].carries_data ? (*items)[end].size : 0;
      if (bytes + next > o.part_bytes && end > begin) break;
      bytes += next;
      ++end;
      if (cut_ok[end]) last_cut = end;
    }
    if (end < items->size()) {
      if (last_cut > begin) end = last_cut;
      else  // one hard-link group alone is over budget: the part grows to hold it whole
        while (end < items->size() && !cut_ok[end]) ++end;
    }
    auto s = write_archive(*items, begin, end, part_name(out_path, result.files.size()), o, result);
    if (!s.ok()) return Result::fail(s.error());
    begin = end;
  }
  return result;
}

}  // namespace railyard
