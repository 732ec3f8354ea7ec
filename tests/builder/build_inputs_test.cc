// builder/image/build_inputs.cc, and the dry run's path through plan and cache with real digests.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>

#include "image/build_inputs.h"
#include "version.h"
#include "builder/temp_dir.h"
#include "image/cache.h"
#include "io/disk_source.h"

using namespace railyard;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The shipped lab recipe with its real driver manifests and overlays.
LoadedRecipe shipped_recipe() {
  DiskSource disk;
  Diagnostics diags;
  auto lr = load_recipe(disk, std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml", RecipeOptions{}, diags);
  for (const auto& d : diags.items()) FAIL_CHECK(format(d));
  REQUIRE(lr);
  return *lr;
}

struct Fixture {
  TempDir tmp;
  OpenSslHasher hasher;
  LoadedRecipe lr = shipped_recipe();
  InputLocations where;
  Fixture() {
    tmp.write("overlays/rdma-limits/etc/security/limits.d/90.conf", "* - memlock unlimited\n");
    tmp.write("overlays/lab-console/etc/issue", "lab\n");
    tmp.write("apt/sources.list.d/debian.sources", "Types: deb\n");
    tmp.write("apt/sources.list.d/notes.txt", "not a source\n");
    tmp.write("bin/railyard-firstboot", "agent v1", 0755);
    where = {tmp / "overlays", tmp / "bin/railyard-firstboot", tmp / "apt"};
  }
  ContentDigests digests() {
    auto d = digest_inputs(lr, where, hasher);
    REQUIRE_MESSAGE(d.ok(), d.error());
    return *d;
  }
};

}  // namespace

TEST_CASE("every input the recipe names is digested") {
  Fixture f;
  ContentDigests d = f.digests();
  CHECK(d.overlays.size() == 2);
  CHECK(d.overlays["lab-console"].size() == 64);
  CHECK(d.agent == f.hasher.sha256_hex("agent v1"));
  CHECK(d.host_apt_sources.size() == 64);
  CHECK(d.driver_keys.empty());  // debian12-inbox is a distro bundle: no key file

  SUBCASE("an overlay's content and modes count, its times do not") {
    fs::last_write_time(f.tmp / "overlays/lab-console/etc/issue",
                        fs::file_time_type::clock::now() - std::chrono::hours(9));
    CHECK(f.digests().overlays == d.overlays);
    REQUIRE(::chmod((f.tmp / "overlays/lab-console/etc/issue").c_str(), 0600) == 0);
    CHECK(f.digests().overlays["lab-console"] != d.overlays["lab-console"]);
    CHECK(f.digests().overlays["rdma-limits"] == d.overlays["rdma-limits"]);
  }
  SUBCASE("only apt source files count") {
    f.tmp.write("apt/sources.list.d/notes.txt", "changed\n");
    CHECK(f.digests().host_apt_sources == d.host_apt_sources);
    f.tmp.write("apt/sources.list", "deb http://mirror.example/debian bookworm main\n");
    CHECK(f.digests().host_apt_sources != d.host_apt_sources);
  }
  SUBCASE("what is absent stays empty") {
    f.where = {f.tmp / "nowhere", "", f.tmp / "no-apt"};
    ContentDigests none = f.digests();
    CHECK(none.overlays.empty());
    CHECK(none.agent.empty());
    CHECK(none.host_apt_sources.empty());
  }
}

TEST_CASE("the agent package is looked for beside the running program, built or installed") {
  TempDir tmp;
  tmp.write("bin/railyard", "", 0755);
  CHECK(find_agent_package(tmp / "bin/railyard") == "");
  tmp.write("bin/packages/railyard-firstboot_0.0.1_amd64.deb", "other version");
  CHECK(find_agent_package(tmp / "bin/railyard") == "");
  std::string name = std::string("railyard-firstboot_") + kVersion + "_amd64.deb";
  tmp.write("usr/share/railyard/packages/" + name, "installed");
  tmp.write("usr/bin/railyard", "", 0755);
  CHECK(find_agent_package(tmp / "usr/bin/railyard") == tmp / ("usr/bin/../share/railyard/packages/" + name));
  tmp.write("bin/packages/" + name, "built");
  CHECK(find_agent_package(tmp / "bin/railyard") == tmp / ("bin/packages/" + name));
}

TEST_CASE("a dry run sees a committed stage as a hit, and a changed driver manifest as a miss from there on") {
  Fixture f;
  BuildPlan plan = plan_build(f.lr, f.digests(), BuildSettings{}, f.hasher);
  StageCache cache(f.tmp / "cache", f.hasher);
  auto lookups = [&](const BuildPlan& p) {
    std::vector<bool> hits;
    for (const auto& s : p.stages) hits.push_back(cache.lookup(s.stage, s.key).hit);
    return hits;
  };
  for (Stage s : {Stage::base, Stage::drivers}) {
    auto pending = cache.begin(s, plan.at(s).key);
    REQUIRE(pending.ok());
    std::ofstream(pending->output() + "/out") << to_string(s);
    REQUIRE(cache.commit(std::move(*pending)).ok());
  }
  CHECK(lookups(plan) == std::vector<bool>{true, true, false, false, false, false, false});
  std::string table = render_build_plan(plan, lookups(plan));
  CHECK(table.find("\ndrivers   " + plan.at(Stage::drivers).key.substr(0, 12) + "  hit    reuse   debian12-inbox") !=
        std::string::npos);
  CHECK(table.find("\noverlays  " + plan.at(Stage::overlays).key.substr(0, 12) + "  -      build   rdma-limits@") !=
        std::string::npos);

  // A new driver release reuses the base; an edited overlay would reuse the drivers.
  f.lr.drivers.front().manifest.version = "44.0-3";
  BuildPlan release = plan_build(f.lr, f.digests(), BuildSettings{}, f.hasher);
  CHECK(lookups(release) == std::vector<bool>{true, false, false, false, false, false, false});
  CHECK(decide_actions(lookups(release))[0] == StageAction::reuse);
}
