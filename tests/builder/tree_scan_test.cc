// builder/image/tree_scan.cc, openssl_hasher.cc and content_digest.cc: trees as data,
// SHA-256 from OpenSSL, XXH3-128 from libxxhash.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>

#include "builder/temp_dir.h"
#include "image/content_digest.h"
#include "image/openssl_hasher.h"
#include "image/tree_scan.h"

using namespace railyard;
using railyard::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("SHA-256 from OpenSSL matches the published test vectors") {
  OpenSslHasher h;
  CHECK(h.sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(h.sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  TempDir tmp;
  std::string big(3 << 20, 'a');  // more than one read block
  tmp.write("abc", "abc");
  tmp.write("big", big);
  CHECK(*h.sha256_file(tmp / "abc") == h.sha256_hex("abc"));
  CHECK(*h.sha256_file(tmp / "big") == h.sha256_hex(big));
  auto missing = h.sha256_file(tmp / "missing");
  REQUIRE(!missing.ok());
  CHECK(missing.error() == tmp / "missing" + ": No such file or directory");
}

TEST_CASE("XXH3-128 matches xxh128sum, whole and read in blocks") {
  CHECK(xxh128_hex("") == "99aa06d3014798d86001c324468d497f");
  CHECK(xxh128_hex("abc") == "06b05ab6733a618578af5f94892f3950");
  TempDir tmp;
  std::string big(3 << 20, 'a');
  tmp.write("abc", "abc");
  tmp.write("big", big);
  CHECK(*xxh128_file(tmp / "abc") == "06b05ab6733a618578af5f94892f3950");
  CHECK(*xxh128_file(tmp / "big") == xxh128_hex(big));
  CHECK(xxh128_file(tmp / "missing").error() == tmp / "missing" + ": No such file or directory");
}

TEST_CASE("a scan hashes many files on every core, each with its own digest") {
  TempDir tmp;
  OpenSslHasher h;
  // Enough bytes for several threads (32 MiB each), in files of different content.
  for (int i = 0; i < 40; ++i)
    tmp.write("t/f" + std::to_string(i), std::string(2 << 20, static_cast<char>('a' + i % 26)) + std::to_string(i));
  auto sha = scan_tree(tmp / "t", h);
  auto xxh = scan_tree(tmp / "t", h, TreeDigest::xxh128);
  REQUIRE(sha.ok());
  REQUIRE(xxh.ok());
  REQUIRE(sha->size() == 40);
  for (std::size_t i = 0; i < sha->size(); ++i) {
    CHECK((*sha)[i].digest == *h.sha256_file(tmp / "t" + "/" + (*sha)[i].path));
    CHECK((*xxh)[i].digest == *xxh128_file(tmp / "t" + "/" + (*xxh)[i].path));
  }
}

TEST_CASE("a tree scan lists content, modes and links in path order, not times") {
  TempDir tmp;
  OpenSslHasher h;
  tmp.write("t/etc/motd", "hi\n", 0644);
  tmp.write("t/usr/bin/tool", "#!\n", 0755);
  fs::create_symlink("usr/bin", tmp / "t/bin");
  for (const char* d : {"t/etc", "t/usr", "t/usr/bin"}) REQUIRE(::chmod((tmp / d).c_str(), 0755) == 0);  // not umask's
  auto first = scan_tree(tmp / "t", h);
  REQUIRE_MESSAGE(first.ok(), first.error());
  CHECK(tree_listing(*first) ==
        "l 0777 bin -> usr/bin\n"
        "d 0755 etc\n"
        "f 0644 etc/motd 3 " +
            h.sha256_hex("hi\n") +
            "\n"
            "d 0755 usr\n"
            "d 0755 usr/bin\n"
            "f 0755 usr/bin/tool 3 " +
            h.sha256_hex("#!\n") + "\n");

  fs::last_write_time(tmp / "t/etc/motd", fs::file_time_type::clock::now() - std::chrono::hours(100));
  CHECK(*scan_tree(tmp / "t", h) == *first);
  REQUIRE(::chmod((tmp / "t/etc/motd").c_str(), 0600) == 0);
  CHECK(*scan_tree(tmp / "t", h) != *first);
}

TEST_CASE("names cannot forge listing lines") {
  TempDir tmp;
  OpenSslHasher h;
  tmp.write("t/a b\nf 0644 x", "", 0644);
  auto tree = scan_tree(tmp / "t", h);
  REQUIRE(tree.ok());
  CHECK(tree_listing(*tree) == "f 0644 a\\x20b\\x0af\\x200644\\x20x 0 " + h.sha256_hex("") + "\n");
}

TEST_CASE("scanning something that is not a directory fails") {
  TempDir tmp;
  OpenSslHasher h;
  tmp.write("file", "x");
  CHECK(!scan_tree(tmp / "file", h).ok());
  CHECK(!scan_tree(tmp / "none", h).ok());
}
