// `railyard check`: telling files apart, checking several together, and the shipped data.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "check.h"
#include "support/diagnostics_expect.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// The disk, for the shipped files only (the core itself never touches it).
class DiskFiles : public FileSource {
 public:
  std::optional<std::string> read(const std::string& path) const override {
    if (!is_file(path)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  bool is_directory(const std::string& path) const override {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
  }
  bool is_file(const std::string& path) const override {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
  }
};

// The *.toml files directly in `dir` of the source tree, sorted.
std::vector<std::string> shipped(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RAILYARD_SOURCE_DIR) + "/" + dir))
    if (e.is_regular_file() && e.path().extension() == ".toml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

FileKind kind_of(const std::string& path, const std::string& text) {
  return detect_kind(path, toml::parse(text, std::string(path)));
}

// Checks the one file at `path` and returns its errors.
std::string check_one(const FileSource& files, const std::string& path, FileKind expected) {
  Diagnostics d;
  auto res = check_files(files, {path}, RecipeOptions{}, d);
  CHECK(res.size() == 1);
  CHECK(res.at(0).kind == expected);
  CHECK(res.at(0).ok == d.empty());
  return all(d);
}

const char* kRecipe = "[image]\nsuite = \"bookworm\"\n[addressing]\nsubnets = [\"198.18.0.0/24\", \"198.18.1.0/24\"]\n";

}  // namespace

// --- telling files apart ---

TEST_CASE("detect_kind: [[node]] tables make an inventory") {
  CHECK(kind_of("nodes.toml", "recipe = \"sku.toml\"\n[[node]]\nhostname = \"n1\"\n") == FileKind::node_inventory);
  // Even under drivers/ or with a kind.
  CHECK(kind_of("drivers/nodes.toml", "kind = \"apt\"\n[[node]]\n") == FileKind::node_inventory);
}

TEST_CASE("detect_kind: a top-level kind makes a driver manifest") {
  CHECK(kind_of("x.toml", "kind = \"distro\"\nversion = \"1\"\n") == FileKind::driver_manifest);
}

TEST_CASE("detect_kind: a file under a drivers/ directory is a driver manifest") {
  CHECK(kind_of("drivers/x.toml", "version = \"1\"\n") == FileKind::driver_manifest);
  CHECK(kind_of("/repo/drivers/x.toml", "version = \"1\"\n") == FileKind::driver_manifest);
  CHECK(kind_of("repo/drivers/vendor/x.toml", "version = \"1\"\n") == FileKind::driver_manifest);
  CHECK(kind_of("my-drivers/x.toml", "version = \"1\"\n") == FileKind::recipe);
}

TEST_CASE("detect_kind: anything else is a recipe") {
  CHECK(kind_of("r.toml", kRecipe) == FileKind::recipe);
  CHECK(kind_of("recipes/r.toml", "") == FileKind::recipe);
}

TEST_CASE("FileKind names") {
  CHECK(to_string(FileKind::recipe) == "recipe");
  CHECK(to_string(FileKind::driver_manifest) == "driver manifest");
  CHECK(to_string(FileKind::node_inventory) == "node inventory");
}

// --- several files together ---

TEST_CASE("check_files checks every file and collects every error") {
  MemorySource files;
  files.add_directory("drivers");
  files.add("good.toml", kRecipe);
  files.add("bad.toml", std::string(kRecipe) + "[fabric]\nmtu = 1\nvlan = 0\n");
  files.add("drivers/x.toml", "name = \"y\"\nversion = \"1\"\npackages = [\"rdma-core\"]\n");
  files.add("nodes.toml",
            "[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\n"
            "[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:02\"\n");
  files.add("syntax.toml", "[image\n");
  Diagnostics d;
  auto res = check_files(files, {"good.toml", "bad.toml", "drivers/x.toml", "nodes.toml", "syntax.toml", "nope.toml"},
                         RecipeOptions{}, d);
  REQUIRE(res.size() == 6);
  CHECK(res[0].path == "good.toml");
  CHECK(res[0].ok);
  CHECK(res[1].kind == FileKind::recipe);
  CHECK_FALSE(res[1].ok);
  CHECK(res[2].kind == FileKind::driver_manifest);
  CHECK_FALSE(res[2].ok);
  CHECK(res[3].kind == FileKind::node_inventory);
  CHECK_FALSE(res[3].ok);
  CHECK_FALSE(res[4].ok);
  CHECK_FALSE(res[5].ok);

  CHECK(d.size() == 6);
  CHECK(at(d, "fabric.mtu: 1 is out of range") == "bad.toml:6:7");
  CHECK(at(d, "fabric.vlan: 0 is out of range") == "bad.toml:7:8");
  CHECK(at(d, "name 'y' must equal the file name 'x'") == "drivers/x.toml:1:8");
  CHECK(at(d, "node[1].hostname: host name 'n1' is already used by node[0].hostname") == "nodes.toml:5:12");
  CHECK(at(d, "TOML syntax:") == "syntax.toml:1:7");
  CHECK(at(d, "cannot read file: No such file or directory") == "nope.toml:0:0");
}

TEST_CASE("check_files checks a recipe's references as the options say") {
  MemorySource files;
  files.add("r.toml",
            "[image]\nsuite = \"bookworm\"\noverlays = [\"lab\"]\n[addressing]\nsubnets = [\"198.18.0.0/24\"]\n");
  Diagnostics d;
  check_files(files, {"r.toml"}, RecipeOptions{}, d);
  CHECK(at(d, "cannot find an overlays/ directory") == "r.toml:3:13");
  RecipeOptions off;
  off.check_references = false;
  Diagnostics d2;
  CHECK(check_files(files, {"r.toml"}, off, d2).at(0).ok);
}

TEST_CASE("an inventory is checked against its recipe") {
  MemorySource files;
  files.add("racks/sku.toml", kRecipe);
  files.add("racks/nodes.toml",
            "recipe = \"sku.toml\"\n[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\n"
            "rails = [\"198.18.0.11\", \"198.18.7.11\"]\n");
  Diagnostics d;
  auto res = check_files(files, {"racks/nodes.toml"}, RecipeOptions{}, d);
  CHECK_FALSE(res.at(0).ok);
  REQUIRE(d.size() == 1);
  CHECK(where(d.items()[0]) == "racks/nodes.toml:5:25");
  CHECK(d.items()[0].message == "node[0].rails[1]: 198.18.7.11 is outside rail 1's subnet 198.18.1.0/24");
}

TEST_CASE("an inventory whose recipe is invalid: one error at `recipe`, the nodes still checked") {
  MemorySource files;
  files.add("sku.toml", std::string(kRecipe) + "[fabric]\nmtu = 1\n");
  files.add("nodes.toml",
            "recipe = \"sku.toml\"\n"
            "[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\nrails = [\"10.0.0.1\"]\n"
            "[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:02\"\n");
  Diagnostics d;
  auto res = check_files(files, {"nodes.toml"}, RecipeOptions{}, d);
  CHECK_FALSE(res.at(0).ok);
  CHECK(d.size() == 2);
  CHECK(
      at(d, "recipe 'sku.toml' cannot be used to check this inventory: it has 1 error(s) (run railyard check on it)") ==
      "nodes.toml:1:10");
  CHECK(at(d, "node[1].hostname: host name 'n1' is already used") == "nodes.toml:7:12");
}

TEST_CASE("an inventory whose recipe is missing") {
  MemorySource files;
  files.add("nodes.toml", "recipe = \"gone.toml\"\n[[node]]\nhostname = \"n1\"\nmac = \"0c:42:a1:00:00:01\"\n");
  Diagnostics d;
  check_files(files, {"nodes.toml"}, RecipeOptions{}, d);
  REQUIRE(d.size() == 1);
  CHECK(at(d, "recipe 'gone.toml' cannot be used to check this inventory: it has 1 error(s)") == "nodes.toml:1:10");
}

// --- the shipped data, read from the source tree ---

TEST_CASE("every shipped recipe passes check") {
  DiskFiles disk;
  auto paths = shipped("recipes");
  CHECK(paths.size() >= 3);
  for (const auto& p : paths) {
    SUBCASE(p.c_str()) { CHECK(check_one(disk, p, FileKind::recipe) == ""); }
  }
}

TEST_CASE("every shipped node inventory passes check against its recipe") {
  DiskFiles disk;
  auto paths = shipped("recipes/inventories");
  CHECK(paths.size() >= 2);
  for (const auto& p : paths) {
    SUBCASE(p.c_str()) { CHECK(check_one(disk, p, FileKind::node_inventory) == ""); }
  }
}

TEST_CASE("every shipped driver manifest passes check") {
  DiskFiles disk;
  auto paths = shipped("drivers");
  CHECK(paths.size() >= 3);
  for (const auto& p : paths) {
    SUBCASE(p.c_str()) { CHECK(check_one(disk, p, FileKind::driver_manifest) == ""); }
  }
}

TEST_CASE("a shipped recipe resolves through its base with its driver bundles") {
  DiskFiles disk;
  Diagnostics d;
  auto lr = load_recipe(disk, std::string(RAILYARD_SOURCE_DIR) + "/recipes/gpu4-cx6dx-100g.toml", RecipeOptions{}, d);
  CHECK(all(d) == "");
  REQUIRE(lr);
  const Recipe& r = lr->recipe;
  CHECK(r.name == "gpu4-cx6dx-100g");
  CHECK(r.image.distro == Distro::ubuntu);  // from the base
  CHECK(r.image.suite == "noble");
  CHECK(r.fabric.vlan == 200);  // from the SKU
  CHECK(r.fabric.pfc == Requirement::required);
  CHECK(r.hardware.rail_count == 4);
  REQUIRE(lr->drivers.size() == 2);
  CHECK(lr->drivers[0].manifest.name == "doca-ofed-2.10.0");
  CHECK(lr->drivers[1].manifest.name == "cuda-13.0");
}

// --- the output contract ---

TEST_CASE("format: FILE:LINE:COL: error: MESSAGE, leaving out what is unknown") {
  CHECK(format({{"r.toml", 3, 7}, "bad"}) == "r.toml:3:7: error: bad");
  CHECK(format({{"r.toml", 3, 0}, "bad"}) == "r.toml:3: error: bad");
  CHECK(format({{"r.toml", 0, 0}, "cannot read file"}) == "r.toml: error: cannot read file");
  CHECK(format({{"", 0, 0}, "bad"}) == "<input>: error: bad");
}

TEST_CASE("Diagnostics sort by file, line, column, then insertion") {
  Diagnostics d;
  d.error({"b.toml", 1, 1}, "b");
  d.error({"a.toml", 2, 5}, "a2");
  d.error({"a.toml", 2, 1}, "a1");
  d.error({"a.toml", 2, 1}, "a1-again");
  Diagnostics more;
  more.error({"a.toml", 1, 9}, "first");
  d.append(more);
  CHECK(d.size() == 5);
  std::vector<std::string> order;
  for (const auto& x : d.sorted()) order.push_back(x.message);
  CHECK(order == std::vector<std::string>{"first", "a1", "a1-again", "a2", "b"});
}
