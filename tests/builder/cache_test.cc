// builder/image/cache.cc, builder/image/cache_entry.cc: entries appear whole, are verified before use,
// survive killed builds, and are pruned newest-first.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "builder/temp_dir.h"
#include "image/cache.h"
#include "image/cache_entry.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kKey1(64, '1'), kKey2(64, '2'), kKey3(64, '3');

std::string make_entry(StageCache& cache, Stage stage, const std::string& key, const std::string& content) {
  auto pending = cache.begin(stage, key);
  REQUIRE_MESSAGE(pending.ok(), pending.error());
  std::ofstream(pending->output() + "/rootfs.tar", std::ios::binary) << content;
  fs::create_directories(pending->output() + "/sub");
  fs::create_symlink("../rootfs.tar", pending->output() + "/sub/link");
  auto done = cache.commit(std::move(*pending));
  REQUIRE_MESSAGE(done.ok(), done.error());
  return *done;
}

std::size_t tmp_entries(const StageCache& cache) {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = fs::directory_iterator(cache.root() + "/tmp", ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

}  // namespace

TEST_CASE("a committed entry is found, and records what it holds") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "cache", h);
  cache.clock = [] { return 1000; };
  CHECK(cache.lookup(Stage::base, kKey1).why_not == "absent");
  std::string out = make_entry(cache, Stage::base, kKey1, "rootfs");
  CHECK(out == cache.entry_dir(Stage::base, kKey1) + "/output");
  CHECK(read_all(out + "/rootfs.tar") == "rootfs");
  CHECK(tmp_entries(cache) == 0);  // the pending directory was renamed, not copied

  CacheLookup hit = cache.lookup(Stage::base, kKey1);
  CHECK(hit.hit);
  CHECK(hit.output == out);
  CHECK(!cache.lookup(Stage::drivers, kKey1).hit);  // keys live per stage

  auto record = parse_record(read_all(cache.entry_dir(Stage::base, kKey1) + "/entry.json"));
  REQUIRE_MESSAGE(record.ok(), record.error());
  CHECK(record->stage == "base");
  CHECK(record->key == kKey1);
  CHECK(record->created == 1000);
  CHECK(record->size == 6);
  REQUIRE(record->files.size() == 3);
  CHECK(record->files[0].path == "rootfs.tar");
  CHECK(record->files[0].digest == "213cfd7b124b5fee8c4ef89c82b6782c");  // xxh128sum
  CHECK(record->files[2].target == "../rootfs.tar");
}

TEST_CASE("an entry is used only while its output is what entry.json says") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "cache", h);
  std::string out = make_entry(cache, Stage::base, kKey1, "rootfs");
  std::string dir = cache.entry_dir(Stage::base, kKey1);
  SUBCASE("same size, other content") {
    std::ofstream(out + "/rootfs.tar") << "ROOTFS";
    CHECK(cache.lookup(Stage::base, kKey1).why_not ==
          "corrupt: output/rootfs.tar: content differs from when it was cached");
  }
  SUBCASE("truncated") {
    std::ofstream(out + "/rootfs.tar") << "root";
    CHECK(cache.lookup(Stage::base, kKey1).why_not ==
          "corrupt: output/rootfs.tar: a file of 4 bytes, expected a file of 6 bytes");
  }
  SUBCASE("a file too many or too few") {
    std::ofstream(out + "/extra") << "";
    CHECK(cache.lookup(Stage::base, kKey1).why_not == "corrupt: output/extra: not part of the entry");
    fs::remove(out + "/extra");
    fs::remove(out + "/sub/link");
    CHECK(cache.lookup(Stage::base, kKey1).why_not == "corrupt: output/sub/link: missing");
  }
  SUBCASE("no entry.json, as a build killed before writing it would leave") {
    fs::remove(dir + "/entry.json");
    CHECK(cache.lookup(Stage::base, kKey1).why_not == "incomplete: no entry.json");
  }
  SUBCASE("an unreadable or foreign entry.json") {
    std::ofstream(dir + "/entry.json") << "{\"schema\": 2";
    CHECK(cache.lookup(Stage::base, kKey1).why_not.rfind("corrupt: entry.json is unreadable", 0) == 0);
    std::ofstream(dir + "/entry.json") << to_json(make_record("base", kKey2, 0, {}));
    CHECK(cache.lookup(Stage::base, kKey1).why_not == "corrupt: entry.json describes base/" + kKey2);
  }
  SUBCASE("a damaged entry is replaced by the next commit of its key") {
    std::ofstream(out + "/rootfs.tar") << "ROOTFS";
    make_entry(cache, Stage::base, kKey1, "rebuilt");
    CHECK(cache.lookup(Stage::base, kKey1).hit);
    CHECK(read_all(out + "/rootfs.tar") == "rebuilt");
    CHECK(tmp_entries(cache) == 0);
  }
  SUBCASE("a good entry wins over a concurrent build's commit of the same key") {
    make_entry(cache, Stage::base, kKey1, "second");
    CHECK(read_all(out + "/rootfs.tar") == "rootfs");
    CHECK(tmp_entries(cache) == 0);
  }
}

TEST_CASE("what a killed build leaves in tmp/ is cleaned; a live build's is not") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "cache", h);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // a build killed mid-stage: its pending entry is never committed or removed
    auto pending = cache.begin(Stage::base, kKey1);
    if (pending.ok()) std::ofstream(pending->output() + "/half") << "half";
    ::_exit(pending.ok() ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(tmp_entries(cache) == 1);
  CHECK(cache.lookup(Stage::base, kKey1).why_not == "absent");  // nothing under its key

  auto live = cache.begin(Stage::drivers, kKey2);
  REQUIRE(live.ok());
  auto cleaned = cache.clean_tmp();
  REQUIRE(cleaned.ok());
  CHECK(*cleaned == 1);
  CHECK(tmp_entries(cache) == 1);  // the live one, still locked
  CHECK(fs::is_directory(live->output()));
  REQUIRE(cache.commit(std::move(*live)).ok());  // and it still commits
  CHECK(cache.lookup(Stage::drivers, kKey2).hit);

  auto dropped = cache.begin(Stage::trim, kKey3);
  REQUIRE(dropped.ok());
  { PendingEntry gone = std::move(*dropped); }  // a failed stage drops its entry
  CHECK(tmp_entries(cache) == 0);
}

TEST_CASE("prune keeps the newest entries per stage and removes incomplete ones") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "cache", h);
  std::int64_t now = 100;
  cache.clock = [&] { return now; };
  make_entry(cache, Stage::base, kKey1, "old");
  now = 300;
  make_entry(cache, Stage::base, kKey2, "new");
  now = 200;
  make_entry(cache, Stage::base, kKey3, "mid");
  make_entry(cache, Stage::drivers, kKey1, "drv");
  fs::create_directories(cache.entry_dir(Stage::pack, kKey1) + "/output");  // no entry.json
  fs::create_directories(cache.root() + "/base/not-a-key");                 // not ours: left alone

  auto listed = cache.list();
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 5);
  CHECK((*listed)[0].key == kKey2);  // base, newest first
  CHECK((*listed)[1].key == kKey3);
  CHECK((*listed)[2].key == kKey1);
  CHECK((*listed)[3].stage == Stage::drivers);
  CHECK((*listed)[4].stage == Stage::pack);
  CHECK(!(*listed)[4].complete);
  CHECK((*listed)[4].problem == "no entry.json");

  SUBCASE("not while a build holds the cache") {
    auto held = cache.hold_shared();
    REQUIRE(held.ok());
    REQUIRE(*held);
    auto refused = cache.prune(1);
    REQUIRE(!refused.ok());
    CHECK(refused.error() == cache.root() + ": a build is using the cache; prune again when it is done");
  }
  SUBCASE("keep 1") {
    auto report = cache.prune(1);
    REQUIRE_MESSAGE(report.ok(), report.error());
    CHECK(report->removed.size() == 3);
    CHECK(report->freed == 6);  // "old" and "mid"
    CHECK(cache.lookup(Stage::base, kKey2).hit);
    CHECK(cache.lookup(Stage::base, kKey1).why_not == "absent");
    CHECK(cache.lookup(Stage::base, kKey3).why_not == "absent");
    CHECK(cache.lookup(Stage::drivers, kKey1).hit);
    CHECK(!fs::exists(cache.entry_dir(Stage::pack, kKey1)));
    CHECK(fs::is_directory(cache.root() + "/base/not-a-key"));
    CHECK(tmp_entries(cache) == 0);
    auto held = cache.hold_shared();  // prune released its lock
    REQUIRE(held.ok());
    CHECK(*held);
  }
  SUBCASE("keep 0 empties it") {
    auto report = cache.prune(0);
    REQUIRE(report.ok());
    CHECK(report->removed.size() == 5);
    CHECK(cache.list()->empty());
  }
}

TEST_CASE("downloads are counted, kept by a prune, and removed only when asked") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "cache", h);
  tmp.write("cache/downloads/0123456789abcdef-rootfs.tar.zst", "archive");
  tmp.write("cache/downloads/packages/rdma-core_44.0-2_amd64.deb", "deb");
  CHECK(cache.downloads().files == 2);
  CHECK(cache.downloads().bytes == 10);
  auto kept = cache.prune(0);
  REQUIRE(kept.ok());
  CHECK(kept->downloads_removed.files == 0);
  CHECK(cache.downloads().files == 2);
  auto removed = cache.prune(0, true);
  REQUIRE_MESSAGE(removed.ok(), removed.error());
  CHECK(removed->downloads_removed.files == 2);
  CHECK(removed->downloads_removed.bytes == 10);
  CHECK(!fs::exists(tmp / "cache/downloads"));
  CHECK(cache.downloads().files == 0);
  CHECK(tmp_entries(cache) == 0);  // renamed into tmp/ and removed there
}

TEST_CASE("prune and list of a cache that does not exist yet") {
  TempDir tmp;
  OpenSslHasher h;
  StageCache cache(tmp / "none", h);
  CHECK(cache.list()->empty());
  CHECK(cache.prune(1)->removed.empty());
  CHECK(!fs::exists(tmp / "none"));  // looking creates nothing
}

TEST_CASE("entry.json round-trips, with modes in octal") {
  TreeEntry file{"usr/bin/su", TreeEntry::Type::file, 04755, 3, std::string(32, 'a'), ""};
  TreeEntry link{"bin", TreeEntry::Type::symlink, 0777, 0, "", "usr/bin"};
  TreeEntry dir{"usr", TreeEntry::Type::directory, 0755, 0, "", ""};
  CacheEntryRecord r = make_record("pack", kKey1, 42, {link, dir, file});
  CHECK(r.size == 3);
  std::string json = to_json(r);
  CHECK(json.find("\"mode\": \"4755\"") != std::string::npos);
  auto back = parse_record(json);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->files == r.files);
  CHECK(back->created == 42);
  CHECK(!parse_record("[]").ok());
  CHECK(parse_record(R"({"schema": 1})").error() == "entry schema 1, expected 2");
}

TEST_CASE("the default cache directory") {
  CHECK(default_cache_dir(true, "/x", "/home/u") == "/var/cache/railyard");
  CHECK(default_cache_dir(false, "/x", "/home/u") == "/x/railyard");
  CHECK(default_cache_dir(false, "relative", "/home/u") == "/home/u/.cache/railyard");
  CHECK(default_cache_dir(false, nullptr, "/home/u") == "/home/u/.cache/railyard");
  CHECK(default_cache_dir(false, nullptr, nullptr) == "");
}
