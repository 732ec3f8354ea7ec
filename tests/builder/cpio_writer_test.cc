// builder/image/cpio_writer.cc: reproducible newc + zstd archives, read back with libarchive.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <algorithm>
#include <map>
#include <vector>

#include "builder/temp_dir.h"
#include "image/cpio_writer.h"
#include "image/openssl_hasher.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kEpoch = 1700000000;

struct File {
  std::string path, content;
  unsigned mode;
};

const std::string kLibrary = [] {
  std::string s;
  for (std::uint32_t i = 0; i < 300000; ++i) s += static_cast<char>((i * 7919u) % 251u);
  return s;
}();

const std::vector<File> kFiles{
    {"etc/motd", "hello\n", 0644},
    {"etc/shadow", "root:*:19000:0:99999:7:::\n", 0640},
    {"etc/old", "from an old package\n", 0644},
    {"usr/bin/tool", "#!/bin/sh\necho hi\n", 0755},
    {"usr/bin/su", "setuid\n", 04755},
    {"usr/bin/perl5.36", "perl\n", 0755},
    {"usr/lib/libbig.so", kLibrary, 0644},
    {"empty", "", 0600},
    {"with space/and name", "x", 0644},
};

void set_time(const std::string& path, std::int64_t t) {
  struct timespec ts[2] = {{static_cast<time_t>(t), 0}, {static_cast<time_t>(t), 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), ts, AT_SYMLINK_NOFOLLOW) == 0);
}

// The same tree, built in either order and with the given times. `outside` gets a second
// name for etc/motd outside the tree, so the host's link count is 2 but the tree's is 1.
std::string make_tree(const TempDir& tmp, const std::string& name, bool reverse, std::int64_t mtime) {
  std::string root = tmp / name;
  fs::create_directories(root);
  std::vector<File> files = kFiles;
  if (reverse) std::reverse(files.begin(), files.end());
  for (const auto& f : files) {
    fs::create_directories(fs::path(root + "/" + f.path).parent_path());
    std::ofstream(root + "/" + f.path, std::ios::binary) << f.content;
    REQUIRE(::chmod((root + "/" + f.path).c_str(), f.mode) == 0);
  }
  fs::create_hard_link(root + "/usr/bin/perl5.36", root + "/usr/bin/perl");
  fs::create_hard_link(root + "/etc/motd", tmp / (name + "-outside-link"));
  fs::create_directory_symlink("usr/bin", root + "/bin");
  fs::create_symlink("/usr/share/zoneinfo/Etc/UTC", root + "/etc/localtime");  // dangling on purpose
  fs::create_directories(root + "/var/empty");
  REQUIRE(::chmod((root + "/var/empty").c_str(), 0700) == 0);
  fs::create_directories(root + "/run");
  REQUIRE(::mkfifo((root + "/run/initctl").c_str(), 0600) == 0);
  for (const auto& e : fs::recursive_directory_iterator(root)) set_time(e.path().string(), mtime);
  set_time(root + "/etc/old", 1600000000);
  return root;
}

struct Read {
  std::string name;
  unsigned type = 0, perm = 0, nlink = 0;
  std::int64_t uid = -1, gid = -1, mtime = 0, ino = 0, dev = -1, size = 0;
  unsigned rmajor = 0, rminor = 0;
  std::string data, symlink, hardlink;
};

std::vector<Read> read_back(const std::string& path) {
  std::vector<Read> out;
  struct archive* a = archive_read_new();
  archive_read_support_filter_zstd(a);
  archive_read_support_format_cpio(a);
  REQUIRE(archive_read_open_filename(a, path.c_str(), 65536) == ARCHIVE_OK);
  struct archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    Read r;
    r.name = archive_entry_pathname(e);
    r.type = archive_entry_filetype(e);
    r.perm = archive_entry_perm(e);
    r.nlink = archive_entry_nlink(e);
    r.uid = archive_entry_uid(e);
    r.gid = archive_entry_gid(e);
    r.mtime = archive_entry_mtime(e);
    r.ino = archive_entry_ino64(e);
    r.dev = static_cast<std::int64_t>(archive_entry_dev(e));
    r.size = archive_entry_size(e);
    r.rmajor = static_cast<unsigned>(archive_entry_rdevmajor(e));
    r.rminor = static_cast<unsigned>(archive_entry_rdevminor(e));
    if (archive_entry_symlink(e)) r.symlink = archive_entry_symlink(e);
    if (archive_entry_hardlink(e)) r.hardlink = archive_entry_hardlink(e);
    char buf[8192];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) r.data.append(buf, static_cast<std::size_t>(n));
    out.push_back(std::move(r));
  }
  archive_read_free(a);
  return out;
}

std::string sha256(const std::string& path) {
  OpenSslHasher h;
  auto d = h.sha256_file(path);
  REQUIRE(d.ok());
  return *d;
}

}  // namespace

TEST_CASE("the same tree gives the same bytes, whatever its times and creation order") {
  TempDir tmp;
  std::string a = make_tree(tmp, "a", false, 1800000000);
  std::string b = make_tree(tmp, "b", true, 1900000000);
  CpioOptions o{kEpoch, 3, 2, {}, {}, {}, 0};
  auto ra = write_cpio_zstd(a, tmp / "a.cpio.zst", o);
  auto rb = write_cpio_zstd(b, tmp / "b.cpio.zst", o);
  REQUIRE_MESSAGE(ra.ok(), ra.error());
  REQUIRE_MESSAGE(rb.ok(), rb.error());
  CHECK(sha256(tmp / "a.cpio.zst") == sha256(tmp / "b.cpio.zst"));
  CHECK(ra->entries == rb->entries);
  REQUIRE(ra->notes.size() == 1);
  CHECK(ra->notes[0].rfind("run/initctl: special file not archived", 0) == 0);

  SUBCASE("and the zstd worker count does not matter") {
    CpioOptions one = o, four = o;
    one.zstd_threads = 1;
    four.zstd_threads = 4;
    REQUIRE(write_cpio_zstd(a, tmp / "1.cpio.zst", one).ok());
    REQUIRE(write_cpio_zstd(a, tmp / "4.cpio.zst", four).ok());
    CHECK(sha256(tmp / "1.cpio.zst") == sha256(tmp / "4.cpio.zst"));
    CHECK(sha256(tmp / "1.cpio.zst") == sha256(tmp / "a.cpio.zst"));
  }
  SUBCASE("but a change of content, mode or link target does") {
    CHECK(::chmod((a + "/etc/motd").c_str(), 0600) == 0);
    REQUIRE(write_cpio_zstd(a, tmp / "mode.cpio.zst", o).ok());
    CHECK(sha256(tmp / "mode.cpio.zst") != sha256(tmp / "b.cpio.zst"));
    fs::remove(b + "/bin");
    fs::create_directory_symlink("usr/sbin", b + "/bin");
    REQUIRE(write_cpio_zstd(b, tmp / "link.cpio.zst", o).ok());
    CHECK(sha256(tmp / "link.cpio.zst") != sha256(tmp / "b.cpio.zst"));
  }
}

TEST_CASE("an image keeps its files' owners; an overlay is root's whoever staged it") {
  TempDir tmp;
  std::string root = make_tree(tmp, "o", false, 1800000000);
  // As a package's postinst leaves them: munge's key directory, slurm's spool.
  bool root_user = ::geteuid() == 0;
  if (root_user) {
    REQUIRE(::lchown((root + "/var/empty").c_str(), 100, 101) == 0);
    REQUIRE(::lchown((root + "/etc/shadow").c_str(), 0, 42) == 0);
  }
  CpioOptions keep{kEpoch, 3, 1, {}, {}, {}, 0};
  keep.keep_owners = true;
  REQUIRE(write_cpio_zstd(root, tmp / "keep.cpio.zst", keep).ok());
  REQUIRE(write_cpio_zstd(root, tmp / "flat.cpio.zst", CpioOptions{kEpoch, 3, 1, {}, {}, {}, 0}).ok());
  std::map<std::string, Read> kept, flat;
  for (const auto& e : read_back(tmp / "keep.cpio.zst")) kept[e.name] = e;
  for (const auto& e : read_back(tmp / "flat.cpio.zst")) flat[e.name] = e;
  struct stat st {};
  REQUIRE(::lstat((root + "/var/empty").c_str(), &st) == 0);
  CHECK(kept.at("var/empty").uid == st.st_uid);
  CHECK(kept.at("var/empty").gid == st.st_gid);
  if (root_user) {
    CHECK(kept.at("var/empty").uid == 100);
    CHECK(kept.at("etc/shadow").gid == 42);
  }
  for (const auto& [name, e] : flat) {
    CAPTURE(name);
    CHECK(e.uid == 0);
    CHECK(e.gid == 0);
  }
}

TEST_CASE("what is read back is the tree: names, modes, owners, times, contents, links") {
  TempDir tmp;
  std::string root = make_tree(tmp, "t", false, 1800000000);
  auto r = write_cpio_zstd(root, tmp / "t.cpio.zst", CpioOptions{kEpoch, 3, 1, {}, {}, {}, 0});
  REQUIRE_MESSAGE(r.ok(), r.error());
  std::vector<Read> entries = read_back(tmp / "t.cpio.zst");

  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  CHECK(names == std::vector<std::string>{"bin",        "empty",        "etc",          "etc/localtime",
                                          "etc/motd",   "etc/old",      "etc/shadow",   "run",
                                          "usr",        "usr/bin",      "usr/bin/perl", "usr/bin/perl5.36",
                                          "usr/bin/su", "usr/bin/tool", "usr/lib",      "usr/lib/libbig.so",
                                          "var",        "var/empty",    "with space",   "with space/and name"});
  CHECK(r->entries == entries.size());
  std::size_t content = 0;
  for (const auto& f : kFiles) content += f.content.size();
  CHECK(r->content_bytes == content);  // the hard-linked data counted once

  std::map<std::string, Read> by_name;
  for (const auto& e : entries) by_name[e.name] = e;
  for (const auto& e : entries) {
    CAPTURE(e.name);
    CHECK(e.uid == 0);
    CHECK(e.gid == 0);
    CHECK(e.dev == 0);
    CHECK(e.ino >= 1);
    CHECK(e.ino <= static_cast<std::int64_t>(entries.size()));      // numbered here, not the host's
    CHECK(e.mtime == (e.name == "etc/old" ? 1600000000 : kEpoch));  // clamped, older ones kept
  }
  for (const auto& f : kFiles) {
    if (f.path == "usr/bin/perl5.36") continue;  // below: a hard link
    CAPTURE(f.path);
    const Read& e = by_name.at(f.path);
    CHECK(e.type == AE_IFREG);
    CHECK(e.perm == f.mode);
    CHECK(e.data == f.content);
    CHECK(e.nlink == 1);  // etc/motd has a second name on the host, outside the tree
  }
  CHECK(by_name.at("usr/bin/su").perm == 04755);
  CHECK(by_name.at("var/empty").type == AE_IFDIR);
  CHECK(by_name.at("var/empty").perm == 0700);
  CHECK(by_name.at("bin").type == AE_IFLNK);
  CHECK(by_name.at("bin").symlink == "usr/bin");
  CHECK(by_name.at("etc/localtime").symlink == "/usr/share/zoneinfo/Etc/UTC");

  // Hard links as newc and the kernel's initramfs unpacker expect them: one inode number,
  // the tree's link count, the data once, on the last name.
  const Read& first = by_name.at("usr/bin/perl");
  const Read& last = by_name.at("usr/bin/perl5.36");
  CHECK(first.ino == last.ino);
  CHECK(first.nlink == 2);
  CHECK(last.nlink == 2);
  CHECK(first.data.empty());
  CHECK(last.data == "perl\n");
  CHECK(last.hardlink == "usr/bin/perl");  // libarchive's reader pairs them up
  CHECK(first.perm == 0755);
}

TEST_CASE("device nodes the image needs are added without existing on disk") {
  TempDir tmp;
  tmp.write("tree/dev/.keep", "");
  CpioOptions o{kEpoch, 3, 1, {{"dev/console", false, 0600, 5, 1}, {"dev/null", false, 0666, 1, 3}}, {}, {}, 0};
  auto r = write_cpio_zstd(tmp / "tree", tmp / "d.cpio.zst", o);
  REQUIRE_MESSAGE(r.ok(), r.error());
  std::vector<Read> entries = read_back(tmp / "d.cpio.zst");
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].name == "dev");
  CHECK(entries[1].name == "dev/.keep");
  CHECK(entries[2].name == "dev/console");
  CHECK(entries[2].type == AE_IFCHR);
  CHECK(entries[2].perm == 0600);
  CHECK(entries[2].rmajor == 5);
  CHECK(entries[2].rminor == 1);
  CHECK(entries[3].name == "dev/null");
  CHECK(entries[3].rmajor == 1);
  CHECK(entries[3].rminor == 3);

  o.device_nodes.push_back({"dev/.keep", false, 0600, 1, 1});
  auto clash = write_cpio_zstd(tmp / "tree", tmp / "e.cpio.zst", o);
  REQUIRE(!clash.ok());
  CHECK(clash.error() == "dev/.keep: a device node replaces a file in the tree");
}

TEST_CASE("a file newc cannot hold is an error that names it") {
  TempDir tmp;
  tmp.write("tree/huge", "");
  REQUIRE(::truncate((tmp / "tree/huge").c_str(), (off_t{1} << 32) + 1) == 0);  // sparse: no disk used
  auto r = write_cpio_zstd(tmp / "tree", tmp / "h.cpio.zst", CpioOptions{});
  REQUIRE(!r.ok());
  CHECK(r.error().find("tree/huge: 4294967297 bytes, over the 4 GiB a newc cpio entry can hold") != std::string::npos);
}

TEST_CASE("a missing tree is an error, not an empty archive") {
  TempDir tmp;
  auto r = write_cpio_zstd(tmp / "nope", tmp / "n.cpio.zst", CpioOptions{});
  REQUIRE(!r.ok());
  CHECK(r.error().find("nope") != std::string::npos);
}

TEST_CASE("symlinks the boot needs are added, excluded prefixes left out") {
  TempDir tmp;
  tmp.write("tree/boot/vmlinuz-6.1", "kernel");
  tmp.write("tree/sbin/init", "init", 0755);
  CpioOptions o{kEpoch, 3, 1, {}, {{"init", "/sbin/init"}}, {"boot/"}, 0};
  auto r = write_cpio_zstd(tmp / "tree", tmp / "s.cpio.zst", o);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->files == std::vector<std::string>{tmp / "s.cpio.zst"});
  std::vector<Read> entries = read_back(tmp / "s.cpio.zst");
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  CHECK(names == std::vector<std::string>{"boot", "init", "sbin", "sbin/init"});
  CHECK(entries[1].type == AE_IFLNK);
  CHECK(entries[1].symlink == "/sbin/init");

  // A path the tree already has wins over the added link.
  tmp.write("tree/init", "#!/bin/sh\n", 0755);
  auto again = write_cpio_zstd(tmp / "tree", tmp / "t.cpio.zst", o);
  REQUIRE(again.ok());
  CHECK(read_back(tmp / "t.cpio.zst")[1].type == AE_IFREG);
}

TEST_CASE("a tree over the part size is split into parts that never cut a hard-link group") {
  TempDir tmp;
  for (int i = 0; i < 6; ++i) tmp.write("tree/f" + std::to_string(i), std::string(1000, static_cast<char>('a' + i)));
  // f2 and a second name in the same part budget window: they must land in one part.
  REQUIRE(::link((tmp / "tree/f2").c_str(), (tmp / "tree/f2b").c_str()) == 0);
  CpioOptions o{kEpoch, 3, 1, {}, {}, {}, 2500};
  auto r = write_cpio_zstd(tmp / "tree", tmp / "rootfs.cpio.zst", o);
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->files.size() >= 3);
  CHECK(r->files[0] == tmp / "rootfs-00.cpio.zst");
  CHECK(r->files[1] == tmp / "rootfs-01.cpio.zst");
  std::map<std::string, std::size_t> part_of;
  std::size_t entries = 0;
  for (std::size_t p = 0; p < r->files.size(); ++p)
    for (const auto& e : read_back(r->files[p])) {
      part_of[e.name] = p;
      ++entries;
    }
  CHECK(entries == r->entries);
  CHECK(entries == 7);
  CHECK(part_of["f2"] == part_of["f2b"]);
  CHECK(r->content_bytes == 6000);
  // Each part's SHA-256, taken as it was written, is that of the file on disk.
  OpenSslHasher h;
  REQUIRE(r->sha256.size() == r->files.size());
  for (std::size_t p = 0; p < r->files.size(); ++p) CHECK(r->sha256[p] == *h.sha256_file(r->files[p]));

  // Under the budget: one archive under its own name.
  o.part_bytes = 1 << 20;
  auto one = write_cpio_zstd(tmp / "tree", tmp / "one.cpio.zst", o);
  REQUIRE(one.ok());
  CHECK(one->files == std::vector<std::string>{tmp / "one.cpio.zst"});
}
