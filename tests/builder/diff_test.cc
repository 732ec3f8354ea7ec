// builder/diff/: dpkg's version order, manifest differences, and their text and JSON.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "diff/debian_version.h"
#include "diff/manifest_diff.h"

using namespace railyard;

namespace {

ImageManifest base_manifest() {
  ImageManifest m;
  m.railyard_version = "0.1.0";
  m.recipe_name = "gpu4";
  m.recipe_sha256 = std::string(64, 'a');
  m.distro = "ubuntu";
  m.suite = "noble";
  m.arch = "amd64";
  m.kernel_version = "6.8.0-45-generic";
  m.kernel_package = "linux-image-6.8.0-45-generic";
  m.kernel_package_version = "6.8.0-45.45";
  m.cmdline = {"console=ttyS0", "quiet"};
  m.boot_kernel = "vmlinuz";
  m.boot_initrds = {"rootfs.cpio.zst"};
  m.stages = {{"base", std::string(64, '1')}, {"drivers", std::string(64, '2')}};
  m.inputs = {{"overlay", "rdma-limits", std::string(64, '3')}};
  m.drivers = {
      {"doca-ofed-2.10.0",
       "2.10.0",
       "apt",
       {"doca-ofed"},
       {"mlx5_core"},
       {{"mlnx-ofed-kernel", "25.01", "6.8.0-45-generic", {"lib/modules/6.8.0-45-generic/updates/dkms/mlx5_core.ko"}}},
       {}},
      {"debian12-inbox", "44.0-2", "distro", {"rdma-core"}, {"mlx5_ib"}, {}, {}}};
  m.packages = {{"bash", "5.2.21-2ubuntu4", "amd64"},
                {"libc6", "2.39-0ubuntu8", "i386"},
                {"gone", "1.0", "all"},
                {"tzdata", "2024a-3", "all"}};
  m.trim_dropped = {"sound", "drivers/media"};
  m.trim_files = 100;
  m.trim_bytes = 5000;
  m.artifacts = {{"vmlinuz", std::string(64, 'b'), 1000},
                 {"rootfs.cpio.zst", std::string(64, 'c'), 50000},
                 {"boot.ipxe", std::string(64, 'd'), 80}};
  return m;
}

}  // namespace

TEST_CASE("debian versions compare as dpkg does") {
  CHECK(compare_debian_versions("1.0", "1.0") == 0);
  CHECK(compare_debian_versions("1.0", "1.1") < 0);
  CHECK(compare_debian_versions("2.10.0", "2.9.0") > 0);
  CHECK(compare_debian_versions("1.0~rc1", "1.0") < 0);  // ~ sorts before the end
  CHECK(compare_debian_versions("1.0", "1.0+b1") < 0);
  CHECK(compare_debian_versions("5.2.15-2+b7", "5.2.15-2+b8") < 0);
  CHECK(compare_debian_versions("1:0.9", "2.0") > 0);  // epochs first
  CHECK(compare_debian_versions("1.0-1", "1.0-10") < 0);
  CHECK(compare_debian_versions("1.01", "1.1") == 0);  // numerically
  CHECK(compare_debian_versions("1.0a", "1.0+") < 0);  // letters before other characters
  CHECK(compare_debian_versions("6.1.119-1", "6.1.123-1") < 0);
}

TEST_CASE("driver families pair a new release with the old one") {
  CHECK(driver_family("doca-ofed-2.10.0", "2.10.0") == "doca-ofed");
  CHECK(driver_family("cuda-13.0", "13.0") == "cuda");
  CHECK(driver_family("debian12-inbox", "44.0-2") == "debian12-inbox");
}

TEST_CASE("identical manifests have no differences") {
  auto d = diff_manifests(base_manifest(), base_manifest());
  CHECK(d.empty());
  CHECK(render_diff_text(d) == "no differences\n");
  auto j = nlohmann::json::parse(render_diff_json(d, "a/manifest.json", "b/manifest.json"));
  CHECK(j["differences"] == false);
  CHECK(j["packages"].empty());
}

TEST_CASE("every kind of change, as text and JSON") {
  ImageManifest a = base_manifest(), b = base_manifest();
  b.recipe_sha256 = std::string(64, 'e');
  b.kernel_version = "6.8.0-47-generic";
  b.kernel_package = "linux-image-6.8.0-47-generic";
  b.kernel_package_version = "6.8.0-47.47";
  b.cmdline = {"console=ttyS0", "panic=-1"};
  b.packages = {{"bash", "5.2.21-2ubuntu5", "amd64"},
                {"libc6", "2.39-0ubuntu8", "i386"},
                {"tzdata", "2023c-1", "all"},
                {"perftest", "24.07.0", "amd64"}};
  b.drivers[0] = {
      "doca-ofed-2.11.0",
      "2.11.0",
      "apt",
      {"doca-ofed", "mlnx-nvme-dkms"},
      {"mlx5_core"},
      {{"mlnx-ofed-kernel", "25.04", "6.8.0-47-generic", {"lib/modules/6.8.0-47-generic/updates/dkms/mlx5_core.ko"}}},
      {}};
  b.trim_dropped = {"sound", "drivers/bluetooth"};
  b.trim_files = 110;
  b.artifacts[1] = {"rootfs.cpio.zst", std::string(64, 'f'), 48000};
  b.artifacts.push_back({"rootfs-01.cpio.zst", std::string(64, '9'), 7000});
  b.stages[1].key = std::string(64, '8');

  auto d = diff_manifests(a, b);
  CHECK(render_diff_text(d) ==
        "recipe.sha256: aaaaaaaaaaaa → eeeeeeeeeeee\n"
        "kernel.version: 6.8.0-45-generic → 6.8.0-47-generic\n"
        "kernel.package: linux-image-6.8.0-45-generic → linux-image-6.8.0-47-generic\n"
        "kernel.package_version: 6.8.0-45.45 → 6.8.0-47.47\n"
        "kernel.cmdline: +panic=-1 -quiet\n"
        "packages: 1 upgraded, 1 downgraded, 1 added, 1 removed\n"
        "  upgraded    bash 5.2.21-2ubuntu4 → 5.2.21-2ubuntu5\n"
        "  removed     gone 1.0\n"
        "  added       perftest 24.07.0\n"
        "  downgraded  tzdata 2024a-3 → 2023c-1\n"
        "drivers:\n"
        "  upgraded    doca-ofed 2.10.0 → 2.11.0 (doca-ofed-2.10.0 → doca-ofed-2.11.0)\n"
        "                packages +mlnx-nvme-dkms\n"
        "dkms:\n"
        "  upgraded    mlnx-ofed-kernel 25.01 → 25.04 (kernel 6.8.0-45-generic → 6.8.0-47-generic)\n"
        "trim.dropped: +drivers/bluetooth -drivers/media\n"
        "trim.files: 100 → 110\n"
        "artifacts:\n"
        "  added       rootfs-01.cpio.zst 7000 bytes\n"
        "  changed     rootfs.cpio.zst 50000 → 48000 bytes (-2000), sha256 cccccccccccc → ffffffffffff\n"
        "stage keys:\n"
        "  drivers 222222222222 → 888888888888\n");

  auto j = nlohmann::json::parse(render_diff_json(d, "old/manifest.json", "new/manifest.json"));
  CHECK(j["differences"] == true);
  CHECK(j["old"] == "old/manifest.json");
  CHECK(j["packages"].size() == 4);
  CHECK(j["packages"][1] == nlohmann::json{{"name", "gone"}, {"change", "removed"}, {"old", "1.0"}, {"new", nullptr}});
  CHECK(j["drivers"][0]["name"] == "doca-ofed");
  CHECK(j["drivers"][0]["packages"]["added"] == nlohmann::json{"mlnx-nvme-dkms"});
  CHECK(j["dkms"][0]["new"] == "25.04");
  CHECK(j["trim"]["files"] == nlohmann::json{{"old", 100}, {"new", 110}});
  CHECK(j["artifacts"][1]["size_delta"] == -2000);
  CHECK(j["artifacts"][0]["old"].is_null());
  CHECK(j["cmdline"]["removed"] == nlohmann::json{"quiet"});
}

TEST_CASE("a driver whose version stays but whose modules change is listed as changed") {
  ImageManifest a = base_manifest(), b = base_manifest();
  b.drivers[1].modules.push_back("rdma_ucm");
  auto d = diff_manifests(a, b);
  REQUIRE(d.drivers.size() == 1);
  CHECK(d.drivers[0].version.kind == ChangeKind::changed);
  CHECK(render_diff_text(d) == "drivers:\n  changed     debian12-inbox 44.0-2\n                modules +rdma_ucm\n");
}

TEST_CASE("manifests are checked with the file and the key named") {
  auto good = render_image_manifest(base_manifest());
  CHECK(parse_image_manifest(good, "m.json").ok());
  auto bad = [&](std::string text) {
    auto m = parse_image_manifest(text, "old/manifest.json");
    REQUIRE_FALSE(m.ok());
    return m.error();
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  CHECK(bad("{\n  \"schema\": 1,\n  oops\n}") ==
        "old/manifest.json:3:3: invalid JSON: syntax error while parsing object key - "
        "invalid literal; expected string literal");
  CHECK(bad("[]") == "old/manifest.json: expected a JSON object, found an array");
  CHECK(bad(replace("\"schema\": 1", "\"schema\": 2")) ==
        "old/manifest.json: schema: 2 is not supported (this railyard reads schema 1)");
  CHECK(bad(replace("\"version\": \"5.2.21-2ubuntu4\"", "\"version\": 5")) ==
        "old/manifest.json: packages[0].version: expected a string, found an integer");
  CHECK(
      bad(replace("\"path\": \"boot.ipxe\"", "\"path\": \"../boot.ipxe\"")) ==
      "old/manifest.json: artifacts[2].path: '../boot.ipxe' is not a normalised path relative to the image directory");
  CHECK(bad(replace("\"path\": \"boot.ipxe\"", "\"path\": \"vmlinuz\"")) ==
        "old/manifest.json: artifacts[2].path: 'vmlinuz' is listed twice");
  CHECK(bad(replace("\"initrds\": [\n      \"rootfs.cpio.zst\"", "\"initrds\": [\n      \"rootfs-00.cpio.zst\"")) ==
        "old/manifest.json: boot.initrds[0]: 'rootfs-00.cpio.zst' is not among the artifacts");
  CHECK(bad(replace("\"trim\"", "\"trimmed\"")) == "old/manifest.json: trim: missing");
  CHECK(bad(replace(std::string(64, 'b'), "xyz"))
            .find("old/manifest.json: artifacts[0].sha256: 'xyz' is not a sha256 digest") == 0);
}

TEST_CASE("the DKMS source packages removed with the build tools are diffed by version") {
  ImageManifest a = base_manifest(), b = base_manifest();
  a.build_tools_sources_removed = {"labofed 1.0", "labofed-dkms 1.0", "labpeermem-dkms 1.0"};
  b.build_tools_sources_removed = {"labofed 1.1", "labofed-dkms 1.1", "labpeermem-dkms 1.0"};
  auto d = diff_manifests(a, b);
  REQUIRE(d.packages.size() == 2);
  CHECK(render_diff_text(d) ==
        "packages: 2 upgraded\n"
        "  upgraded    labofed (DKMS source, removed) 1.0 → 1.1\n"
        "  upgraded    labofed-dkms (DKMS source, removed) 1.0 → 1.1\n");
}
