// Recipe → build plan (build_plan.cc, build_plan_render.cc): what each stage's key covers.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "build_plan.h"
#include "image_hygiene.h"

using namespace railyard;

namespace {

// Deterministic stand-in for SHA-256: FNV-1a, four seeds → 64 hex digits. Not a real
// hash, but any change of input changes it, which is all these tests rely on.
class FakeHasher : public Hasher {
 public:
  std::string sha256_hex(std::string_view data) override {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
      std::uint64_t h = 1469598103934665603ULL ^ seed;
      for (unsigned char c : data) h = (h ^ c) * 1099511628211ULL;
      for (int i = 15; i >= 0; --i) out += hex[(h >> (i * 4)) & 0xf];
    }
    return out;
  }
};

const char* kRecipe = R"(schema = 1
name = "lab"
[image]
suite = "bookworm"
mirror = "host"
packages = ["udev", "kmod", "iproute2"]
drivers = ["inbox", "vendor"]
overlays = ["one", "two"]
cmdline = ["console=ttyS0", "panic=-1"]
drop_modules = ["sound", "drivers/media"]
[addressing]
subnets = ["198.18.0.0/24"]
[fabric]
mtu = 9000
)";

const char* kInbox = R"(schema = 1
name = "inbox"
version = "44.0-2"
kind = "distro"
packages = ["rdma-core"]
)";

const char* kVendor = R"(schema = 1
name = "vendor"
version = "2.10.0"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo"
suite = "./"
key_file = "vendor.gpg"
)";

struct Inputs {
  std::string recipe = kRecipe;
  std::string inbox = kInbox;
  std::string vendor = kVendor;
  ContentDigests digests{{{"one", "11aa"}, {"two", "22bb"}}, {{"vendor", "33cc"}}, "44dd", "55ee", {}};
  BuildSettings settings{1700000000, 3};
};

BuildPlan plan(const Inputs& in) {
  MemorySource files;
  files.add("/r/recipes/lab.toml", in.recipe);
  files.add("/r/drivers/inbox.toml", in.inbox);
  files.add("/r/drivers/vendor.toml", in.vendor);
  files.add("/r/drivers/vendor.gpg", "key");
  files.add_directory("/r/drivers");
  files.add_directory("/r/overlays");
  files.add_directory("/r/overlays/one");
  files.add_directory("/r/overlays/two");
  Diagnostics diags;
  auto lr = load_recipe(files, "/r/recipes/lab.toml", RecipeOptions{}, diags);
  for (const auto& d : diags.items()) FAIL_CHECK(format(d));
  REQUIRE(lr);
  FakeHasher hasher;
  return plan_build(*lr, in.digests, in.settings, hasher);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// Which stages' keys differ between two plans, as "drivers overlays ...".
std::string changed(const BuildPlan& a, const BuildPlan& b) {
  std::string out;
  for (Stage s : kStages)
    if (a.at(s).key != b.at(s).key) out += (out.empty() ? "" : " ") + to_string(s);
  return out;
}

}  // namespace

TEST_CASE("the plan has every stage in order, each with its own key") {
  BuildPlan p = plan(Inputs{});
  REQUIRE(p.stages.size() == kStages.size());
  for (std::size_t i = 0; i < kStages.size(); ++i) {
    CHECK(p.stages[i].stage == kStages[i]);
    CHECK(p.stages[i].key.size() == 64);
    CHECK(!p.stages[i].inputs.empty());
    // base 3: it keeps apt's binary caches; hygiene 3: it stamps /etc as updated; trim 2;
    // drivers 4: the build tools first, purged with the DKMS sources that depend on them, each
    // bundle's own .ko files, pins apt reads (.pref); pack 2: build_tools in the manifest;
    // agent 2: the recipe's modules for systemd-modules-load.
    const char* version = kStages[i] == Stage::drivers                                ? "stage_version = 4"
                          : kStages[i] == Stage::base || kStages[i] == Stage::hygiene ? "stage_version = 3"
                          : kStages[i] == Stage::trim || kStages[i] == Stage::pack || kStages[i] == Stage::agent
                              ? "stage_version = 2"
                              : "stage_version = 1";
    CHECK(p.stages[i].inputs.find(version) != std::string::npos);
    for (std::size_t j = 0; j < i; ++j) CHECK(p.stages[i].key != p.stages[j].key);
  }
  CHECK(p.recipe_name == "lab");
  CHECK(changed(p, plan(Inputs{})) == "");  // same inputs, same keys
}

TEST_CASE("each input invalidates its stage and every later one, never an earlier one") {
  BuildPlan before = plan(Inputs{});
  Inputs in;
  SUBCASE("a driver manifest") {
    in.inbox = replace(in.inbox, "44.0-2", "44.0-3");
    CHECK(changed(before, plan(in)) == "drivers overlays agent hygiene trim pack");
  }
  SUBCASE("a driver bundle's signing key") {
    in.digests.driver_keys["vendor"] = "99ff";
    CHECK(changed(before, plan(in)) == "drivers overlays agent hygiene trim pack");
  }
  SUBCASE("an overlay's content") {
    in.digests.overlays["two"] = "99ff";
    CHECK(changed(before, plan(in)) == "overlays agent hygiene trim pack");
  }
  SUBCASE("the overlays' order: later overlays win on conflicts") {
    in.recipe = replace(in.recipe, R"(["one", "two"])", R"(["two", "one"])");
    CHECK(changed(before, plan(in)) == "overlays agent hygiene trim pack");
  }
  SUBCASE("the agent") {
    in.digests.agent = "99ff";
    CHECK(changed(before, plan(in)) == "agent hygiene trim pack");
  }
  SUBCASE("a key the image installs only as the recipe file") {
    in.recipe = replace(in.recipe, "mtu = 9000", "mtu = 4200");
    CHECK(changed(before, plan(in)) == "agent hygiene trim pack");
  }
  SUBCASE("the module directories to drop") {
    in.recipe = replace(in.recipe, R"(["sound", "drivers/media"])", R"(["sound"])");
    // The recipe file in the image changes too, so the agent stage and everything after it.
    CHECK(changed(before, plan(in)) == "agent hygiene trim pack");
  }
  SUBCASE("a package, the mirror's content or SOURCE_DATE_EPOCH") {
    in.digests.host_apt_sources = "99ff";
    CHECK(changed(before, plan(in)) == "base drivers overlays agent hygiene trim pack");
    Inputs epoch;
    epoch.settings.source_date_epoch = 1;
    CHECK(changed(before, plan(epoch)) == "base drivers overlays agent hygiene trim pack");
    Inputs pkg;
    pkg.recipe = replace(pkg.recipe, R"("iproute2"])", R"("iproute2", "curl"])");
    CHECK(changed(before, plan(pkg)) == "base drivers overlays agent hygiene trim pack");
  }
  SUBCASE("the paths dpkg leaves out, which every package install obeys") {
    in.recipe = replace(in.recipe, "[image]\n", "[image]\npath_exclude = [\"/usr/share/doc/*\"]\n");
    CHECK(changed(before, plan(in)) == "base drivers overlays agent hygiene trim pack");
    Inputs include = in;
    include.recipe = replace(include.recipe, "[image]\n", "[image]\npath_include = [\"/usr/share/doc/*/copyright\"]\n");
    CHECK(changed(plan(in), plan(include)) == "base drivers overlays agent hygiene trim pack");
    CHECK(plan(include)
              .at(Stage::base)
              .summary.find(", dpkg leaving out /usr/share/doc/* but /usr/share/doc/*/copyright") != std::string::npos);
  }
  SUBCASE("a bundle's description, which installs nothing") {
    in.inbox = replace(in.inbox, "kind = ", "description = \"the inbox stack\"\nkind = ");
    CHECK(changed(before, plan(in)) == "");
  }
  SUBCASE("the compression level") {
    in.settings.zstd_level = 19;
    CHECK(changed(before, plan(in)) == "pack");
  }
}

TEST_CASE("orderings that cannot change the image keep the base") {
  Inputs in;
  in.recipe = replace(in.recipe, R"(["udev", "kmod", "iproute2"])", R"(["iproute2", "udev", "kmod"])");
  BuildPlan a = plan(Inputs{}), b = plan(in);
  CHECK(a.at(Stage::base).key == b.at(Stage::base).key);
  CHECK(a.at(Stage::base).inputs.find("packages = [ 'iproute2', 'kmod', 'udev' ]") != std::string::npos);
}

TEST_CASE("the host's apt sources count only when the recipe builds from them") {
  Inputs url;
  url.recipe = replace(url.recipe, R"(mirror = "host")", R"(mirror = "http://mirror.example/debian")");
  Inputs url2 = url;
  url2.digests.host_apt_sources = "99ff";
  CHECK(changed(plan(url), plan(url2)) == "");
  CHECK(plan(url).at(Stage::base).inputs.find("host_apt_sources") == std::string::npos);
  CHECK(plan(url).at(Stage::base).summary.find("from http://mirror.example/debian;") != std::string::npos);
}

TEST_CASE("a vendor root filesystem keys the base by its sha256, not by a mirror or the host's sources") {
  Inputs a;
  a.recipe = replace(
      a.recipe, R"(mirror = "host")",
      "rootfs_url = \"https://vendor.example/v1/rootfs.tar.zst\"\nrootfs_sha256 = \"" + std::string(64, 'a') + "\"");
  Inputs moved = a, host = a, other = a;
  moved.recipe = replace(moved.recipe, "/v1/", "/mirror2/");
  host.digests.host_apt_sources = "99ff";
  other.recipe = replace(other.recipe, std::string(64, 'a'), std::string(64, 'b'));
  // The archive moved: the base and drivers stay; the image carries the recipe, which changed.
  CHECK(changed(plan(a), plan(moved)) == "agent hygiene trim pack");
  CHECK(changed(plan(a), plan(host)) == "");
  CHECK(changed(plan(a), plan(other)) == "base drivers overlays agent hygiene trim pack");
  CHECK(plan(a).at(Stage::base).inputs.find("mirror") == std::string::npos);
  CHECK(plan(a).at(Stage::base).summary.find("from the root filesystem rootfs.tar.zst (aaaaaaaa);") !=
        std::string::npos);
}

TEST_CASE("what is missing is planned as missing and said in the summary") {
  Inputs in;
  in.digests = {};
  BuildPlan p = plan(in);
  CHECK(p.at(Stage::overlays).summary == "one@MISSING, two@MISSING");
  CHECK(p.at(Stage::overlays).inputs.find("tree_sha256 = 'missing'") != std::string::npos);
  CHECK(p.at(Stage::drivers).summary == "inbox 44.0-2, vendor 2.10.0 (key MISSING)");
  CHECK(p.at(Stage::agent).summary.find("(NOT FOUND)") != std::string::npos);
  CHECK(p.at(Stage::base).summary.find("host's apt sources (MISSING)") != std::string::npos);
}

TEST_CASE("stage summaries say what defines them in a line") {
  BuildPlan p = plan(Inputs{});
  CHECK(p.at(Stage::base).summary ==
        "debian bookworm amd64 from the host's apt sources (44dd); linux-image-amd64 + 3 packages");
  CHECK(p.at(Stage::drivers).summary == "inbox 44.0-2, vendor 2.10.0");
  CHECK(p.at(Stage::overlays).summary == "one@11aa, two@22bb");
  CHECK(p.at(Stage::hygiene).summary == std::to_string(hygiene_rules().size()) + " identity and cache rules (v" +
                                            std::to_string(kHygieneRulesVersion) + ")");
  CHECK(p.at(Stage::trim).summary == "drop drivers/media, sound");
  CHECK(p.at(Stage::pack).summary == "vmlinuz, cpio newc + zstd -3, boot.ipxe (2 cmdline args), manifest.json");
  CHECK(p.at(Stage::drivers).inputs.find("key_file_sha256 = '33cc'") != std::string::npos);
}

TEST_CASE("stage names round-trip") {
  for (Stage s : kStages) CHECK(parse_stage(to_string(s)) == s);
  CHECK(!parse_stage("pxe"));
}

TEST_CASE("a build starts from the last cached stage") {
  using A = StageAction;
  CHECK(decide_actions({false, false, false}) == std::vector<A>{A::build, A::build, A::build});
  CHECK(decide_actions({true, false, false}) == std::vector<A>{A::reuse, A::build, A::build});
  // An earlier entry pruned away does not matter: the later one already contains it.
  CHECK(decide_actions({false, true, false}) == std::vector<A>{A::skip, A::reuse, A::build});
  CHECK(decide_actions({true, true, true}) == std::vector<A>{A::skip, A::skip, A::reuse});
  CHECK(decide_actions({}).empty());
}

TEST_CASE("only the stages worth storing are stored") {
  std::vector<Stage> stored;
  for (Stage s : kStages)
    if (stage_is_stored(s)) stored.push_back(s);
  CHECK(stored == std::vector<Stage>{Stage::base, Stage::drivers, Stage::pack});
  CHECK(stage_worth_storing(Stage::base, 0.5));
  CHECK(stage_worth_storing(Stage::pack, 0.5));
  CHECK_FALSE(stage_worth_storing(Stage::drivers, 3));  // a few distro packages: redone
  CHECK(stage_worth_storing(Stage::drivers, 240));      // DKMS modules built: kept
  CHECK_FALSE(stage_worth_storing(Stage::trim, 240));
}

TEST_CASE("the dry-run table") {
  BuildPlan p = plan(Inputs{});
  std::string nothing = render_build_plan(p, std::vector<bool>(7, false));
  CHECK(nothing.rfind("STAGE     KEY           CACHE  ACTION  DEFINED BY\n", 0) == 0);
  CHECK(nothing.find("\nbase      " + p.at(Stage::base).key.substr(0, 12) + "  miss   build   debian bookworm amd64") !=
        std::string::npos);
  CHECK(nothing.find("\nnothing cached: 7 of 7 stages to build\n") != std::string::npos);

  std::string some = render_build_plan(p, {true, true, false, false, false, false, false});
  CHECK(some.find("\nbase      " + p.at(Stage::base).key.substr(0, 12) + "  hit    -       ") != std::string::npos);
  CHECK(some.find("\ndrivers   " + p.at(Stage::drivers).key.substr(0, 12) + "  hit    reuse   ") != std::string::npos);
  CHECK(some.find("\nstarting from the cached drivers stage: 5 of 7 stages to build\n") != std::string::npos);

  CHECK(some.find("\noverlays  " + p.at(Stage::overlays).key.substr(0, 12) + "  -      build   ") != std::string::npos);
  CHECK(render_build_plan(p, std::vector<bool>(7, true)).find("everything cached") != std::string::npos);
  std::string off = render_build_plan(p, {});
  CHECK(off.find("  off    build   ") != std::string::npos);
  CHECK(off.find("cache off (--no-cache): 7 of 7 stages to build") != std::string::npos);
}
