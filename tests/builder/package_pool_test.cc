// builder/image/stages/package_pool.cc: packages kept between builds are lent to apt only when the
// image's package index names exactly their content.
#include <doctest/doctest.h>

#include <filesystem>

#include "builder/temp_dir.h"
#include "image/openssl_hasher.h"
#include "image/stages/package_pool.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string stanza(const std::string& package, const std::string& version, const std::string& arch,
                   const std::string& sha256) {
  return "Package: " + package + "\nSource: x\nVersion: " + version + "\nArchitecture: " + arch +
         "\nDescription: a package\n with a continuation line\nSHA256: " + sha256 + "\nFilename: pool/" + package +
         ".deb\n\n";
}

const std::string kArchives = "root/var/cache/apt/archives/";
const std::string kLists = "root/var/lib/apt/lists/";

}  // namespace

TEST_CASE("apt's archive names: epoch colons and underscores escaped, the rest as written") {
  CHECK(apt_archive_name("libpci3", "1:3.9.0-4", "amd64") == "libpci3_1%3a3.9.0-4_amd64.deb");
  CHECK(apt_archive_name("pci.ids", "0.0~2023.04.11-1", "all") == "pci.ids_0.0~2023.04.11-1_all.deb");
  CHECK(apt_archive_name("libnl-3-200", "3.7.0-0.2+b1", "amd64") == "libnl-3-200_3.7.0-0.2+b1_amd64.deb");
  CHECK(apt_archive_name("x", "1_2%", "amd64") == "x_1%5f2%25_amd64.deb");
}

TEST_CASE("index digests: only wanted names, every SHA-256 a name has across repositories") {
  const std::string a(64, 'a'), b(64, 'b'), c(64, 'c');
  std::string index = stanza("rdma-core", "44.0-2", "amd64", a) + stanza("perftest", "4.5", "amd64", b) +
                      stanza("libpci3", "1:3.9.0-4", "amd64", c) + "Package: broken\nVersion: 1\n";  // no SHA256
  std::map<std::string, std::set<std::string>> out;
  add_index_digests(index, {"rdma-core_44.0-2_amd64.deb", "libpci3_1%3a3.9.0-4_amd64.deb", "broken_1_amd64.deb"}, out);
  CHECK(out.size() == 2);
  CHECK(out["rdma-core_44.0-2_amd64.deb"] == std::set<std::string>{a});
  CHECK(out["libpci3_1%3a3.9.0-4_amd64.deb"] == std::set<std::string>{c});
  add_index_digests(stanza("rdma-core", "44.0-2", "amd64", b), {"rdma-core_44.0-2_amd64.deb"}, out);
  CHECK(out["rdma-core_44.0-2_amd64.deb"] == std::set<std::string>{a, b});
}

TEST_CASE("a kept package is lent only when the index names its content; apt's downloads are kept, none stays") {
  TempDir tmp;
  OpenSslHasher h;
  PackagePool pool(tmp / "pool", h);
  tmp.write("pool/good_1_amd64.deb", "good");
  tmp.write("pool/damaged_1_amd64.deb", "damaged by a disk");  // same name, other content than indexed
  tmp.write("pool/old_0.9_amd64.deb", "old");                  // a version the index no longer has
  tmp.write("pool/twice_1_amd64.deb", "twice");                // two repositories disagree: not lent
  tmp.write(
      kLists + "deb.example.org_debian_dists_bookworm_main_binary-amd64_Packages",
      stanza("good", "1", "amd64", h.sha256_hex("good")) + stanza("damaged", "1", "amd64", h.sha256_hex("damaged")) +
          stanza("old", "1.0", "amd64", h.sha256_hex("old")) + stanza("twice", "1", "amd64", h.sha256_hex("twice")));
  tmp.write(kLists + "vendor.example.com_dists_stable_main_binary-amd64_Packages",
            stanza("twice", "1", "amd64", h.sha256_hex("other build")));

  auto loan = pool.lend(tmp / "root");
  REQUIRE_MESSAGE(loan.ok(), loan.error());
  CHECK(loan->packages == 1);
  CHECK(loan->names == std::set<std::string>{"good_1_amd64.deb"});
  CHECK(read_all(tmp / (kArchives + "good_1_amd64.deb")) == "good");
  CHECK_FALSE(fs::exists(tmp / (kArchives + "damaged_1_amd64.deb")));
  CHECK_FALSE(fs::exists(tmp / (kArchives + "twice_1_amd64.deb")));

  // apt ran: it downloaded the damaged one afresh and a new one.
  tmp.write(kArchives + "damaged_1_amd64.deb", "damaged");
  tmp.write(kArchives + "new_2_all.deb", "new");
  tmp.write(kArchives + "partial/new_3_all.deb", "half");  // an interrupted download: not a package yet
  auto kept = pool.keep(tmp / "root", *loan);
  REQUIRE_MESSAGE(kept.ok(), kept.error());
  CHECK(*kept == 1);  // "damaged" is not replaced in the pool by name: the next loan re-checks it
  CHECK(read_all(tmp / "pool/new_2_all.deb") == "new");
  CHECK(read_all(tmp / "pool/good_1_amd64.deb") == "good");
  CHECK_FALSE(fs::exists(tmp / "pool/new_3_all.deb"));
  for (const auto& e : fs::directory_iterator(tmp / kArchives))
    CHECK_MESSAGE(!e.path().string().ends_with(".deb"), std::string(e.path().string() + " left in the image"));

  // Nothing kept: nothing read, nothing lent.
  TempDir empty;
  PackagePool none(empty / "pool", h);
  auto nothing = none.lend(tmp / "root");
  REQUIRE(nothing.ok());
  CHECK(nothing->packages == 0);
}
