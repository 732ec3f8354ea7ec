// Recipes: the cross-field rules (recipe_validate.cc), extends (toml_file.cc) and the
// references to driver bundles and overlays (recipe_loader.cc).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "recipe_loader.h"
#include "support/diagnostics_expect.h"
#include "support/recipe_expect.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// Recipe "r.toml" (line 1 `extends = "base.toml"`, then `body`) with its driver bundles
// looked up: drivers/labqos.toml emulates DCB, drivers/inbox.toml does not.
LoadedText load_with_bundles(const std::string& body) {
  MemorySource files;
  files.add("base.toml", kBaseRecipe);
  files.add("r.toml", "extends = \"base.toml\"" + body);
  files.add_directory("drivers");
  files.add_directory("drivers/labqos");
  files.add("drivers/inbox.toml", "version = \"1\"\npackages = [\"rdma-core\"]\n");
  files.add("drivers/labqos.toml",
            "version = \"1.0\"\nkind = \"source\"\ndkms = [\"labqos\"]\nemulates = [\"dcb\"]\n"
            "[source]\ndir = \"labqos\"\n");
  files.add("drivers/labqos/dkms.conf", "PACKAGE_NAME=\"labqos\"\nPACKAGE_VERSION=\"1.0\"\n");
  return load_path(files, "r.toml", true);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// image

TEST_CASE("Debian with an Ubuntu suite") {
  CHECK(one(load(R"(
[image]
suite = "noble"
)")
                .diags,
            R"(image.suite 'noble' is an Ubuntu release, but image.distro is "debian")") == "r.toml:3:9");
  CHECK(all(load(R"(
[image]
suite = "trixie"
)")
                .diags) == "");
}

TEST_CASE("Ubuntu with a Debian suite") {
  CHECK(one(load(R"(
[image]
distro = "ubuntu"
suite = "bookworm"
)")
                .diags,
            R"(image.suite 'bookworm' is a Debian release, but image.distro is "ubuntu")") == "r.toml:4:9");
  CHECK(all(load(R"(
[image]
distro = "ubuntu"
suite = "noble"
)")
                .diags) == "");
}

TEST_CASE("Ubuntu with Debian's kernel package") {
  CHECK(one(load(R"(
[image]
distro = "ubuntu"
suite = "noble"
kernel = "linux-image-amd64"
)")
                .diags,
            "image.kernel 'linux-image-amd64' is Debian's kernel package; Ubuntu's is linux-image-generic") ==
        "r.toml:5:10");
  CHECK(all(load(R"(
[image]
distro = "ubuntu"
suite = "noble"
kernel = "linux-image-generic-hwe-24.04"
)")
                .diags) == "");
}

TEST_CASE("a vendor root filesystem is pinned by sha256 and replaces the mirror") {
  const std::string sha(64, 'a');
  CHECK(all(load(R"(
[image]
suite = "bookworm"
rootfs_url = "https://vendor.example/rootfs.tar.zst"
rootfs_sha256 = ")" +
                 sha + R"("
)")
                .diags) == "");
  CHECK(one(load(R"(
[image]
suite = "bookworm"
rootfs_url = "https://vendor.example/rootfs.tar.zst"
)")
                .diags,
            "image.rootfs_url needs image.rootfs_sha256 (the archive's sha256, 64 hex digits)") == "r.toml:4:14");
  CHECK(one(load(R"(
[image]
suite = "bookworm"
rootfs_sha256 = ")" +
                 sha + R"("
)")
                .diags,
            "image.rootfs_sha256 is only used with image.rootfs_url") == "r.toml:4:17");
  CHECK(one(load(R"(
[image]
suite = "bookworm"
mirror = "host"
rootfs_url = "https://vendor.example/rootfs.tar.zst"
rootfs_sha256 = ")" +
                 sha + R"("
)")
                .diags,
            "image.mirror is not used with image.rootfs_url: the root filesystem's own apt sources install what it "
            "lacks; remove one of them") == "r.toml:4:10");
  auto bad = load(R"(
[image]
suite = "bookworm"
rootfs_url = "ftp://vendor.example/rootfs.tar.zst"
rootfs_sha256 = "abc"
)");
  CHECK(at(bad.diags, "image.rootfs_url: 'ftp://vendor.example/rootfs.tar.zst' is not an http:// or https:// URL") ==
        "r.toml:4:14");
  CHECK(at(bad.diags, "image.rootfs_sha256: 'abc' is not 64 hexadecimal digits") == "r.toml:5:17");
  CHECK(bad.diags.size() == 2);  // no cascade from the rejected keys
}

TEST_CASE("an empty kernel resolves to the distro's package for the architecture") {
  CHECK(load(R"(
[image]
arch = "amd64"
)")
            .recipe()
            .image.kernel == "linux-image-amd64");
  CHECK(load(R"(
[image]
arch = "arm64"
)")
            .recipe()
            .image.kernel == "linux-image-arm64");
  CHECK(load(R"(
[image]
distro = "ubuntu"
suite = "noble"
)")
            .recipe()
            .image.kernel == "linux-image-generic");
  CHECK(load(R"(
[image]
distro = "ubuntu"
suite = "noble"
arch = "arm64"
)")
            .recipe()
            .image.kernel == "linux-image-generic");
  CHECK(load(R"(
[image]
kernel = "linux-image-rt-amd64"
)")
            .recipe()
            .image.kernel == "linux-image-rt-amd64");
}

TEST_CASE("drop_modules may not remove a directory the agent needs") {
  CHECK(one(load(R"(
[image]
drop_modules = ["sound", "drivers/infiniband"]
)")
                .diags,
            "image.drop_modules: dropping 'drivers/infiniband' removes modules the first-boot agent needs") ==
        "r.toml:3:26");
  CHECK(one(load(R"(
[image]
drop_modules = ["net"]
)")
                .diags,
            "dropping 'net' removes net/8021q, modules the first-boot agent needs") == "r.toml:3:17");
}

TEST_CASE("drop_modules may not remove a parent of a needed directory") {
  auto r = load(R"(
[image]
drop_modules = ["drivers"]
)");
  // drivers/ holds three needed directories: one error for each, all on the element.
  CHECK(r.diags.size() == 3);
  CHECK(at(r.diags, "dropping 'drivers' removes drivers/net, modules") == "r.toml:3:17");
  CHECK(at(r.diags, "dropping 'drivers' removes drivers/infiniband, modules") == "r.toml:3:17");
  CHECK(at(r.diags, "dropping 'drivers' removes drivers/nvme, modules") == "r.toml:3:17");
}

TEST_CASE("drop_modules may remove other directories and subdirectories of needed ones") {
  CHECK(all(load(R"(
[image]
drop_modules = ["drivers/net/wireless", "drivers/media", "sound", "drivers/infiniband/hw/hfi1"]
)")
                .diags) == "");
}

TEST_CASE("path_exclude leaves documentation out, never what the node runs") {
  auto ok = load(R"(
[image]
path_exclude = ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/locale/*/LC_MESSAGES/*.mo"]
path_include = ["/usr/share/doc/*/copyright"]
)");
  CHECK(all(ok.diags) == "");
  CHECK(ok.recipe().image.path_include == std::vector<std::string>{"/usr/share/doc/*/copyright"});
  // dpkg's fnmatch lets * cross slashes: /usr/* is everything below /usr.
  CHECK(one(load(R"(
[image]
path_exclude = ["/usr/share/doc/*", "/usr/*"]
)")
                .diags,
            "image.path_exclude: '/usr/*' excludes /usr/bin/railyard-firstboot (the first-boot agent); exclude less, "
            "or keep it with image.path_include") == "r.toml:3:37");
  CHECK(one(load(R"(
[image]
path_exclude = ["/lib/udev/hwdb.d/*"]
)")
                .diags,
            "excludes /lib/udev/hwdb.d/20-pci-vendor-model.hwdb (the PCI names the agent reports") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
path_exclude = ["/lib/modules/*/kernel/drivers/*"]
)")
                .diags,
            "(kernel modules (image.drop_modules removes module directories))") == "r.toml:3:17");
  // Kept by an include, as dpkg would.
  CHECK(all(load(R"(
[image]
path_exclude = ["/usr/bin/*"]
path_include = ["/usr/bin/railyard-firstboot"]
)")
                .diags) == "");
}

TEST_CASE("path_exclude and path_include take absolute patterns and nothing that breaks dpkg's configuration") {
  CHECK(one(load(R"(
[image]
path_exclude = ["usr/share/doc/*"]
)")
                .diags,
            "image.path_exclude: element 0: 'usr/share/doc/*' is not an absolute path pattern") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
path_exclude = ["/usr/share/doc/*\npath-include=/x"]
)")
                .diags,
            "holds a control character (\\x0a); no value may hold a line break") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
path_exclude = ["/usr/share/../../etc/*"]
)")
                .diags,
            "no empty, . or .. parts") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
path_exclude = ["/usr/share/doc/* /etc/*"]
)")
                .diags,
            "is not an absolute path pattern") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
path_include = ["/usr/share/doc/*/copyright"]
)")
                .diags,
            "image.path_include only keeps what image.path_exclude drops; image.path_exclude is empty") ==
        "r.toml:3:16");
}

TEST_CASE("drop_modules must be relative without ..") {
  CHECK(one(load(R"(
[image]
drop_modules = ["/lib/modules"]
)")
                .diags,
            "image.drop_modules: element 0: '/lib/modules' must be a directory relative to") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
drop_modules = ["sound/../drivers"]
)")
                .diags,
            "must be a directory relative to") == "r.toml:3:17");
}

// Module directories are compared normalised: a trailing slash, "./" or an empty entry is no way around.
TEST_CASE("drop_modules spelled with a trailing slash or ./ is still protected") {
  CHECK(one(load(R"(
[image]
drop_modules = ["drivers/infiniband/"]
)")
                .diags,
            "dropping 'drivers/infiniband/'") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
drop_modules = ["./drivers/infiniband"]
)")
                .diags,
            "drivers/infiniband") == "r.toml:3:17");
  CHECK(one(load(R"(
[image]
drop_modules = [""]
)")
                .diags,
            "image.drop_modules") == "r.toml:3:17");
}

TEST_CASE("a package listed twice") {
  CHECK(one(load(R"(
[image]
packages = ["curl", "jq", "curl"]
)")
                .diags,
            "image.packages: 'curl' is listed twice") == "r.toml:3:27");
  CHECK(all(load(R"(
[image]
packages = ["curl", "jq"]
)")
                .diags) == "");
}

TEST_CASE("an overlay listed twice") {
  CHECK(one(load(R"(
[image]
overlays = ["lab", "lab"]
)")
                .diags,
            "image.overlays: 'lab' is listed twice") == "r.toml:3:20");
}

// ---------------------------------------------------------------------------------------------
// hardware

TEST_CASE("rails must match rail_count") {
  CHECK(one(load(R"(
[hardware]
rail_count = 2
rails = ["1b:00.0"]
)")
                .diags,
            "hardware.rails lists 1 NICs but hardware.rail_count is 2") == "r.toml:4:9");
  CHECK(all(load(R"(
[hardware]
rail_count = 2
rails = ["1b:00.0", "1c:00.0"]
)")
                .diags) == "");
}

TEST_CASE("a rail listed twice, PCI short and full forms being the same NIC") {
  CHECK(one(load(R"(
[hardware]
rails = ["0000:1b:00.0", "1B:00.0"]
)")
                .diags,
            "hardware.rails: '1B:00.0' is listed twice") == "r.toml:3:26");
  CHECK(one(load(R"(
[hardware]
rails = ["ens1f0np0", "ens1f0np0"]
)")
                .diags,
            "hardware.rails: 'ens1f0np0' is listed twice") == "r.toml:3:23");
  CHECK(all(load(R"(
[hardware]
rails = ["0000:1b:00.0", "1b:00.1"]
)")
                .diags) == "");
}

TEST_CASE("a rail is a PCI address or an interface name") {
  CHECK(one(load(R"(
[hardware]
rails = ["1b:00.0", "a-very-long-interface-name"]
)")
                .diags,
            "hardware.rails: element 1: 'a-very-long-interface-name' is neither a PCI address") == "r.toml:3:21");
}

TEST_CASE("gpu_device_ids with gpu_count 0") {
  CHECK(one(load(R"(
[hardware]
gpu_device_ids = ["0x2330"]
)")
                .diags,
            "hardware.gpu_device_ids is set but hardware.gpu_count is 0") == "r.toml:3:18");
  CHECK(all(load(R"(
[hardware]
gpu_count = 8
gpu_device_ids = ["0x2330"]
)")
                .diags) == "");
}

// ---------------------------------------------------------------------------------------------
// fabric

TEST_CASE("Soft-RoCE cannot require PFC, unless a lab bundle emulates DCB") {
  CHECK(one(load_with_bundles(R"(
[fabric]
soft_roce = true
pfc = "required"
ecn = "off"
)")
                .diags,
            R"(fabric.pfc = "required" cannot hold with fabric.soft_roce = true)") == "r.toml:4:7");
  CHECK(all(load_with_bundles(R"(
[fabric]
soft_roce = true
pfc = "best-effort"
ecn = "best-effort"
)")
                .diags) == "");
  CHECK(all(load_with_bundles(R"(
[image]
drivers = ["inbox", "labqos"]
[fabric]
soft_roce = true
pfc = "required"
ecn = "required"
)")
                .diags) == "");
}

TEST_CASE("Soft-RoCE cannot require ECN, unless a lab bundle emulates DCB") {
  CHECK(one(load_with_bundles(R"(
[image]
drivers = ["inbox"]
[fabric]
soft_roce = true
pfc = "off"
ecn = "required"
)")
                .diags,
            R"(fabric.ecn = "required" cannot hold with fabric.soft_roce = true)") == "r.toml:7:7");
}

TEST_CASE("a lab stand-in bundle is refused in a production recipe") {
  CHECK(one(load_with_bundles(R"(
[image]
drivers = ["inbox", "labqos"]
)")
                .diags,
            "bundle 'labqos' is a lab stand-in (emulates dcb in software); only a lab recipe (fabric.soft_roce = "
            "true) may use it") == "r.toml:3:21");
}

TEST_CASE("PFC and ECN may be required without Soft-RoCE") {
  CHECK(all(load(R"(
[fabric]
pfc = "required"
ecn = "required"
)")
                .diags) == "");
}

TEST_CASE("CNP DSCP equal to RoCE DSCP") {
  CHECK(one(load(R"(
[fabric]
roce_dscp = 26
cnp_dscp = 26
)")
                .diags,
            "fabric.cnp_dscp equals fabric.roce_dscp (26)") == "r.toml:4:12");
  CHECK(all(load(R"(
[fabric]
roce_dscp = 24
cnp_dscp = 46
)")
                .diags) == "");
}

TEST_CASE("trust pcp needs a VLAN") {
  CHECK(one(load(R"(
[fabric]
trust = "pcp"
)")
                .diags,
            R"(fabric.trust = "pcp" needs fabric.vlan)") == "r.toml:3:9");
  CHECK(all(load(R"(
[fabric]
trust = "pcp"
vlan = 200
)")
                .diags) == "");
}

// An error about a key left at its default points at its table's header.
TEST_CASE("an error on a defaulted key points at its table") {
  CHECK(one(load_with_bundles(R"(
[fabric]
soft_roce = true
ecn = "off"
)")
                .diags,
            R"(fabric.pfc = "required" cannot hold)") == "r.toml:2:1");
  CHECK(one(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "per-rail-subnet"
)")
                .diags,
            "addressing.subnets is empty") == "r.toml:4:1");
  CHECK(one(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "shared-subnet"
)")
                .diags,
            R"(mode = "shared-subnet" needs addressing.subnet)") == "r.toml:4:1");
}

// A key rejected on its own does not also fail the cross-field checks it takes part in.
TEST_CASE("a rejected key produces no cascade of cross-field errors") {
  CHECK(one(load(R"(
[fabric]
soft_roce = true
pfc = "requird"
ecn = "off"
)")
                .diags,
            "fabric.pfc: \"requird\" is not allowed") == "r.toml:4:7");
  CHECK(one(load(R"(
[fabric]
roce_dscp = 99
cnp_dscp = 26
)")
                .diags,
            "fabric.roce_dscp: 99 is out of range") == "r.toml:3:13");
  CHECK(one(load(R"(
[fabric]
trust = "pcp"
vlan = 5000
)")
                .diags,
            "fabric.vlan: 5000 is out of range") == "r.toml:4:8");
  CHECK(one(load(R"(
[image]
distro = "ubuntu"
suite = "Noble"
)")
                .diags,
            "image.suite: 'Noble' contains 'N'") == "r.toml:4:9");
  CHECK(one(load(R"(
[hardware]
rail_count = 3
[addressing]
subnets = ["198.18.0.0/24", "198.18.1.1/24"]
)")
                .diags,
            "addressing.subnets: element 1:") == "r.toml:5:29");
  CHECK(one(load(R"(
[hardware]
rail_count = 99
rails = ["1b:00.0"]
)")
                .diags,
            "hardware.rail_count: 99 is out of range") == "r.toml:3:14");
}

// A rejected suite does not hide the image checks that do not depend on it.
TEST_CASE("a rejected suite does not hide unrelated image errors") {
  auto r = load(R"(
[image]
suite = "Bookworm"
drop_modules = ["drivers/infiniband"]
packages = ["curl", "curl"]
)");
  CHECK(r.diags.size() == 3);
  CHECK(at(r.diags, "image.suite: 'Bookworm' contains 'B'") == "r.toml:3:9");
  CHECK(at(r.diags, "dropping 'drivers/infiniband'") == "r.toml:4:17");
  CHECK(at(r.diags, "image.packages: 'curl' is listed twice") == "r.toml:5:21");
}

// ---------------------------------------------------------------------------------------------
// addressing

TEST_CASE("per-rail-subnet without subnets") {
  CHECK(one(load_alone(R"(
[image]
suite = "bookworm"
)")
                .diags,
            "addressing.subnets is empty: RoCE v2 needs an IPv4 address on every rail") == "r.toml:1:1");
}

TEST_CASE("per-rail-subnet with the wrong number of subnets") {
  CHECK(one(load(R"(
[hardware]
rail_count = 3
[addressing]
subnets = ["198.18.0.0/24", "198.18.1.0/24"]
)")
                .diags,
            "addressing.subnets has 2 subnets for 3 rails; give exactly one per rail") == "r.toml:5:11");
  // The rails listed count too when rail_count is 0.
  CHECK(one(load(R"(
[hardware]
rails = ["ens1", "ens2", "ens3"]
)")
                .diags,
            "addressing.subnets has 2 subnets for 3 rails") == "base.toml:5:11");
  CHECK(all(load(R"(
[hardware]
rail_count = 2
)")
                .diags) == "");
}

TEST_CASE("per-rail-subnet with addressing.subnet set") {
  CHECK(one(load(R"(
[addressing]
subnet = "198.18.8.0/22"
)")
                .diags,
            R"(addressing.subnet is for mode = "shared-subnet"; per-rail-subnet uses addressing.subnets)") ==
        "r.toml:3:10");
}

TEST_CASE("shared-subnet without a subnet") {
  auto r = load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "shared-subnet"
)");
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags.items()[0].message == R"(mode = "shared-subnet" needs addressing.subnet)");
  CHECK(all(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "shared-subnet"
subnet = "198.18.0.0/22"
)")
                .diags) == "");
}

TEST_CASE("shared-subnet with addressing.subnets set") {
  CHECK(one(load(R"(
[addressing]
mode = "shared-subnet"
subnet = "198.18.8.0/22"
subnets = ["198.18.0.0/24"]
)")
                .diags,
            R"(addressing.subnets is for mode = "per-rail-subnet"; shared-subnet uses addressing.subnet)") ==
        "r.toml:5:11");
}

TEST_CASE("shared-subnet routing tables may not reach the reserved ones") {
  CHECK(one(load_alone(R"(
[image]
suite = "bookworm"
[hardware]
rail_count = 4
[addressing]
mode = "shared-subnet"
subnet = "198.18.0.0/22"
table_base = 250
)")
                .diags,
            "reaches the kernel's reserved tables (253–255)") == "r.toml:9:14");
  CHECK(all(load_alone(R"(
[image]
suite = "bookworm"
[hardware]
rail_count = 4
[addressing]
mode = "shared-subnet"
subnet = "198.18.0.0/22"
table_base = 249
)")
                .diags) == "");
}

// Rail N (0-based) uses table table_base + N, so 3 rails from 250 use 250–252, none reserved.
TEST_CASE("shared-subnet tables up to 252 are accepted") {
  CHECK(all(load_alone(R"(
[image]
suite = "bookworm"
[hardware]
rail_count = 3
[addressing]
mode = "shared-subnet"
subnet = "198.18.0.0/22"
table_base = 250
)")
                .diags) == "");
}

TEST_CASE("a /32 rail subnet has no room for a host") {
  CHECK(one(load(R"(
[addressing]
subnets = ["198.18.0.0/24", "198.18.1.1/32"]
)")
                .diags,
            "addressing.subnets[1]: 198.18.1.1/32 has room for no host; use /31 or shorter") == "r.toml:3:29");
  CHECK(all(load(R"(
[addressing]
subnets = ["198.18.0.0/31", "198.18.0.2/31"]
)")
                .diags) == "");
}

TEST_CASE("overlapping rail subnets") {
  CHECK(one(load(R"(
[addressing]
subnets = ["10.0.0.0/24", "10.0.0.0/16"]
)")
                .diags,
            "addressing.subnets[1]: 10.0.0.0/16 overlaps addressing.subnets[0] (10.0.0.0/24); every rail needs its own "
            "subnet") == "r.toml:3:27");
}

TEST_CASE("a rail subnet overlapping the management subnet") {
  CHECK(one(load(R"(
[management]
subnet = "198.18.1.0/24"
)")
                .diags,
            "addressing.subnets[1]: 198.18.1.0/24 overlaps the management subnet 198.18.1.0/24") == "base.toml:5:29");
  CHECK(one(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "shared-subnet"
subnet = "10.10.0.0/24"
[management]
subnet = "10.10.0.0/16"
)")
                .diags,
            "addressing.subnet: 10.10.0.0/24 overlaps the management subnet 10.10.0.0/16") == "r.toml:6:10");
  CHECK(all(load(R"(
[management]
subnet = "10.10.0.0/16"
)")
                .diags) == "");
}

// ---------------------------------------------------------------------------------------------
// nvmeof

TEST_CASE("NVMe-oF target on a rail that does not exist, with rail_count") {
  CHECK(one(load(R"(
[hardware]
rail_count = 2
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 2
)")
                .diags,
            "nvmeof[0].rail: rail 2 does not exist; the recipe has 2 rails (0–1)") == "r.toml:7:8");
  CHECK(all(load(R"(
[hardware]
rail_count = 2
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 1
)")
                .diags) == "");
}

TEST_CASE("NVMe-oF target on a rail that does not exist, counted by the subnets") {
  CHECK(one(load(R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 5
)")
                .diags,
            "nvmeof[0].rail: rail 5 does not exist; the recipe has 2 rails (0–1)") == "r.toml:5:8");
  // Shared subnet and discovered rails: nothing fixes the count, nothing to check.
  CHECK(all(load_alone(R"(
[image]
suite = "bookworm"
[addressing]
mode = "shared-subnet"
subnet = "198.18.0.0/22"
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 5
)")
                .diags) == "");
}

TEST_CASE("the same NVMe-oF target twice") {
  CHECK(one(load(R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"

[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"
rail = 1
)")
                .diags,
            "nvmeof[1] repeats nvmeof[0] (same address, port and NQN)") == "r.toml:6:1");
  CHECK(all(load(R"(
[[nvmeof]]
address = "198.18.0.100"
nqn = "nqn.2024-01.example.storage:data"

[[nvmeof]]
address = "198.18.0.100"
port = 4421
nqn = "nqn.2024-01.example.storage:data"
)")
                .diags) == "");
}

// ---------------------------------------------------------------------------------------------
// join

TEST_CASE("ca_file needs an https report URL") {
  CHECK(one(load(R"(
[join]
report_url = "http://reports.example/api"
ca_file = "/etc/railyard/ca.pem"
)")
                .diags,
            "join.ca_file is set but join.report_url is not https://") == "r.toml:4:11");
  CHECK(one(load(R"(
[join]
ca_file = "/etc/railyard/ca.pem"
)")
                .diags,
            "join.ca_file is set but join.report_url is not https://") == "r.toml:3:11");
  CHECK(all(load(R"(
[join]
report_url = "https://reports.example/api"
ca_file = "/etc/railyard/ca.pem"
)")
                .diags) == "");
}

TEST_CASE("token_file over plain http") {
  CHECK(one(load(R"(
[join]
report_url = "http://reports.example/api"
token_file = "/etc/railyard/token"
)")
                .diags,
            "join.token_file would send a bearer token in clear text over http://; use https://") == "r.toml:4:14");
  CHECK(all(load(R"(
[join]
report_url = "https://reports.example/api"
token_file = "/etc/railyard/token"
)")
                .diags) == "");
}

TEST_CASE("token_file over http to the loopback is allowed") {
  for (const char* url : {"http://127.0.0.1:8080/api", "http://localhost/api", "http://localhost:9000/api"}) {
    CAPTURE(url);
    CHECK(all(load(std::string("\n[join]\nreport_url = \"") + url + "\"\ntoken_file = \"/etc/railyard/token\"\n")
                  .diags) == "");
  }
}

// Only a URL whose host is the loopback may carry a bearer token over http.
TEST_CASE("token_file over http to a host that only looks like the loopback") {
  for (const char* url : {"http://localhost.attacker.example/api", "http://127.attacker.example/api"}) {
    CAPTURE(url);
    CHECK(one(load(std::string("\n[join]\nreport_url = \"") + url + "\"\ntoken_file = \"/etc/railyard/token\"\n").diags,
              "join.token_file would send a bearer token in clear text") == "r.toml:4:14");
  }
}

TEST_CASE("token_file without a report URL") {
  CHECK(one(load(R"(
[join]
token_file = "/etc/railyard/token"
)")
                .diags,
            "join.token_file is set but there is no join.report_url") == "r.toml:3:14");
}

// ---------------------------------------------------------------------------------------------
// extends

TEST_CASE("extends merges tables key by key and replaces arrays") {
  MemorySource files;
  files.add("base.toml", R"(
name = "base-sku"
[image]
suite = "bookworm"
packages = ["curl", "jq"]
[fabric]
mtu = 4200
vlan = 100
[addressing]
subnets = ["198.18.0.0/24"]
)");
  files.add("r.toml", R"(extends = "base.toml"
[image]
packages = ["ethtool"]
[fabric]
vlan = 200
)");
  auto r = load_path(files, "r.toml");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.recipe().image.suite == "bookworm");
  CHECK(r.recipe().image.packages == std::vector<std::string>{"ethtool"});
  CHECK(r.recipe().fabric.mtu == 4200);
  CHECK(r.recipe().fabric.vlan == 200);
  CHECK(r.recipe().addressing.subnets == std::vector<std::string>{"198.18.0.0/24"});
}

TEST_CASE("extends does not inherit the name") {
  MemorySource files;
  files.add("base.toml", std::string("name = \"base-sku\"\n") + kBaseRecipe);
  files.add("sku-a.toml", "extends = \"base.toml\"\n");
  files.add("sku-b.toml", "extends = \"base.toml\"\nname = \"bee\"\n");
  CHECK(load_path(files, "sku-a.toml").recipe().name == "sku-a");
  CHECK(load_path(files, "sku-b.toml").recipe().name == "bee");
  CHECK(load_path(files, "base.toml").recipe().name == "base-sku");
}

TEST_CASE("extends is relative to the file that says it, down a chain") {
  MemorySource files;
  files.add("recipes/base/common.toml", "[image]\nsuite = \"bookworm\"\npackages = [\"curl\"]\n");
  files.add("recipes/base/rails.toml", "extends = \"common.toml\"\n[addressing]\nsubnets = [\"198.18.0.0/24\"]\n");
  files.add("recipes/sku.toml", "extends = \"base/rails.toml\"\n[fabric]\nmtu = 4200\n");
  auto r = load_path(files, "recipes/sku.toml");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.recipe().image.packages == std::vector<std::string>{"curl"});
  CHECK(r.recipe().addressing.subnets.size() == 1);
  CHECK(r.recipe().fabric.mtu == 4200);
  CHECK(r.recipe().name == "sku");
}

TEST_CASE("errors point into the file that set the value") {
  MemorySource files;
  files.add("base/b.toml", "[image]\nsuite = \"bookworm\"\n[fabric]\nmtu = 100000\n");
  files.add("r.toml", "extends = \"base/b.toml\"\n[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[fabric]\nvlan = 0\n");
  auto r = load_path(files, "r.toml");
  CHECK(r.diags.size() == 2);
  CHECK(at(r.diags, "fabric.mtu: 100000 is out of range") == "base/b.toml:4:7");
  CHECK(at(r.diags, "fabric.vlan: 0 is out of range") == "r.toml:5:8");
}

TEST_CASE("a cross-field error on an inherited value points into the base") {
  MemorySource files;
  files.add("base.toml", "[image]\nsuite = \"bookworm\"\n[addressing]\nsubnets = [\"198.18.0.0/24\"]\n");
  files.add("r.toml", "extends = \"base.toml\"\n[image]\ndistro = \"ubuntu\"\n");
  CHECK(one(load_path(files, "r.toml").diags, "image.suite 'bookworm' is a Debian release") == "base.toml:2:9");
}

TEST_CASE("extends cycle is detected") {
  MemorySource files;
  files.add("a.toml", "extends = \"b.toml\"\n");
  files.add("b.toml", "extends = \"a.toml\"\n");
  auto r = load_path(files, "a.toml");
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags.items()[0].message == "extends: 'a.toml' forms a cycle: a.toml -> b.toml -> a.toml");
  CHECK(r.diags.items()[0].pos.file == "b.toml");

  MemorySource self;
  self.add("r.toml", "extends = \"r.toml\"\n");
  CHECK(load_path(self, "r.toml").diags.items().at(0).message == "extends: 'r.toml' forms a cycle: r.toml -> r.toml");
}

// The cycle is reported at the `extends` that closes it.
TEST_CASE("extends cycle is reported at the extends that closes it") {
  MemorySource files;
  files.add("a.toml", "extends = \"b.toml\"\n");
  files.add("b.toml", "\nextends = \"a.toml\"\n");
  CHECK(one(load_path(files, "a.toml").diags, "forms a cycle") == "b.toml:2:11");
}

namespace {
// Like the disk: "./a.toml" and "x/../a.toml" are "a.toml". Gives up after 100 reads.
class NormalizingSource : public MemorySource {
 public:
  std::optional<std::string> read(const std::string& path) const override {
    if (++reads_ > 100) return std::nullopt;
    return MemorySource::read(std::filesystem::path(path).lexically_normal().string());
  }

 private:
  mutable int reads_ = 0;
};
}  // namespace

// Paths are compared normalised, so a differently spelled self-reference is a cycle too.
TEST_CASE("extends cycle through a differently spelled path is detected") {
  NormalizingSource files;
  files.add("r.toml", "extends = \"./r.toml\"\n");
  auto r = load_path(files, "r.toml");
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags.items()[0].message.find("forms a cycle") != std::string::npos);
}

TEST_CASE("extends names a missing file") {
  CHECK(one(load_alone("extends = \"nope.toml\"\n").diags, "extends: cannot read base recipe 'nope.toml'") ==
        "r.toml:1:11");
  MemorySource files;
  files.add("recipes/r.toml", "extends = \"base/nope.toml\"\n");
  CHECK(one(load_path(files, "recipes/r.toml").diags, "cannot read base recipe 'recipes/base/nope.toml'") ==
        "recipes/r.toml:1:11");
}

TEST_CASE("extends is not a string") {
  CHECK(one(load_alone("extends = [\"base.toml\"]\n").diags,
            "extends: expected a string (a recipe path relative to this file), found an array") == "r.toml:1:11");
}

TEST_CASE("a syntax error in the base is reported in the base") {
  MemorySource files;
  files.add("base.toml", "[image\n");
  files.add("r.toml", "extends = \"base.toml\"\n");
  CHECK(one(load_path(files, "r.toml").diags, "TOML syntax:") == "base.toml:1:7");
}

// ---------------------------------------------------------------------------------------------
// references to driver bundles and overlays

namespace {

// A repository in memory: drivers/ with bundles, overlays/ with `lab` and `tuning`.
struct Repo {
  MemorySource files;
  Repo() {
    files.add_directory("drivers");
    files.add_directory("overlays");
    files.add_directory("overlays/lab");
    files.add_directory("overlays/tuning");
    bundle("inbox", "suites = [\"debian:bookworm\"]\n");
    bundle("ofed", "suites = [\"ubuntu:noble\", \"debian:bookworm\"]\nconflicts = [\"inbox\"]\n");
    bundle("noble-only", "suites = [\"ubuntu:noble\"]\n");
    bundle("any", "");
  }
  void bundle(const std::string& name, const std::string& extra) {
    files.add("drivers/" + name + ".toml", "version = \"1\"\npackages = [\"rdma-core\"]\n" + extra);
  }
  // r.toml: addressing, then [image] with suite on line 4 and `image` (the rest of it) from line 5.
  LoadedText load(const std::string& image) {
    files.add("r.toml", "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"bookworm\"\n" + image);
    return load_path(files, "r.toml", true);
  }
};

}  // namespace

TEST_CASE("references: existing bundles and overlays are accepted and loaded in order") {
  Repo repo;
  auto r = repo.load("drivers = [\"any\", \"inbox\"]\noverlays = [\"lab\", \"tuning\"]\n");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  REQUIRE(r.lr->drivers.size() == 2);
  CHECK(r.lr->drivers[0].manifest.name == "any");
  CHECK(r.lr->drivers[1].manifest.name == "inbox");
}

TEST_CASE("references: a missing bundle") {
  Repo repo;
  CHECK(one(repo.load("drivers = [\"inbox\", \"nope\"]\n").diags,
            "image.drivers: no driver bundle 'nope' (drivers/nope.toml does not exist)") == "r.toml:5:21");
}

TEST_CASE("references: a bundle listed twice") {
  Repo repo;
  CHECK(one(repo.load("drivers = [\"inbox\", \"inbox\"]\n").diags, "image.drivers: bundle 'inbox' is listed twice") ==
        "r.toml:5:21");
}

TEST_CASE("references: a bundle that does not install on the recipe's distro and suite") {
  Repo repo;
  CHECK(one(repo.load("drivers = [\"noble-only\"]\n").diags,
            "image.drivers: bundle 'noble-only' installs on ubuntu:noble, not on debian:bookworm") == "r.toml:5:12");
}

// References skip checks that depend on a rejected suite.
TEST_CASE("references: a rejected suite produces no cascade of bundle errors") {
  Repo repo;
  repo.files.add("r.toml",
                 "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"Bookworm\"\n"
                 "drivers = [\"inbox\"]\n");
  CHECK(one(load_path(repo.files, "r.toml", true).diags, "image.suite: 'Bookworm' contains 'B'") == "r.toml:4:9");
}

TEST_CASE("references: conflicting bundles") {
  Repo repo;
  CHECK(one(repo.load("drivers = [\"inbox\", \"ofed\"]\n").diags,
            "image.drivers: bundle 'ofed' conflicts with 'inbox' (see drivers/ofed.toml)") == "r.toml:5:11");
}

TEST_CASE("references: an invalid bundle manifest") {
  Repo repo;
  repo.files.add("drivers/bad.toml", "name = \"other\"\nversion = \"1\"\npackages = [\"x\"]\n");
  auto r = repo.load("drivers = [\"bad\"]\n");
  CHECK(r.diags.size() == 2);
  CHECK(at(r.diags, "image.drivers: bundle 'bad' is invalid (1 error(s) in drivers/bad.toml)") == "r.toml:5:12");
  CHECK(at(r.diags, "name 'other' must equal the file name 'bad'") == "drivers/bad.toml:1:8");
}

TEST_CASE("references: a missing overlay") {
  Repo repo;
  CHECK(one(repo.load("overlays = [\"lab\", \"nope\"]\n").diags,
            "image.overlays: no overlay 'nope' (overlays/nope/ does not exist)") == "r.toml:5:20");
}

TEST_CASE("references: no drivers/ or overlays/ directory") {
  MemorySource files;
  files.add("r.toml",
            "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"bookworm\"\n"
            "drivers = [\"inbox\"]\noverlays = [\"lab\"]\n");
  auto r = load_path(files, "r.toml", true);
  CHECK(r.diags.size() == 2);
  CHECK(at(r.diags, "image.drivers: cannot find a drivers/ directory beside or above the recipe to look up 'inbox'") ==
        "r.toml:5:12");
  CHECK(at(r.diags, "image.overlays: cannot find an overlays/ directory beside or above the recipe") == "r.toml:6:13");
}

TEST_CASE("references: drivers/ is found above the recipe, or where the options say") {
  Repo repo;
  repo.files.add("recipes/sku/r.toml",
                 "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"bookworm\"\ndrivers = [\"inbox\"]\n");
  CHECK(all(load_path(repo.files, "recipes/sku/r.toml", true).diags) == "");

  MemorySource elsewhere;
  elsewhere.add_directory("vendor/drv");
  elsewhere.add("vendor/drv/inbox.toml", "version = \"1\"\npackages = [\"rdma-core\"]\n");
  elsewhere.add("r.toml",
                "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"bookworm\"\ndrivers = [\"inbox\"]\n");
  RecipeOptions opts;
  opts.drivers_dir = "vendor/drv";
  Diagnostics d;
  CHECK(load_recipe(elsewhere, "r.toml", opts, d));
  CHECK(all(d) == "");
}

TEST_CASE("references are not checked when check_references is off") {
  MemorySource files;
  files.add("r.toml",
            "[addressing]\nsubnets = [\"198.18.0.0/24\"]\n[image]\nsuite = \"bookworm\"\ndrivers = [\"nope\"]\n");
  CHECK(all(load_path(files, "r.toml", false).diags) == "");
}

TEST_CASE("find_dir_upwards walks up to the first directory holding the child") {
  MemorySource files;
  files.add_directory("drivers");
  files.add_directory("recipes/drivers");
  CHECK(find_dir_upwards(files, "recipes/base", "drivers") == "recipes/drivers");
  CHECK(find_dir_upwards(files, "other/deep/dir", "drivers") == "drivers");
  CHECK(find_dir_upwards(files, "other", "overlays") == "");
  // From inside recipes/ (or deeper), a recipe named by a relative path: the walk goes on
  // above the working directory, as it would from the top.
  MemorySource above;
  above.add_directory("../drivers");
  above.add_directory("../../overlays");
  CHECK(find_dir_upwards(above, "", "drivers") == "../drivers");
  CHECK(find_dir_upwards(above, "inventories/..", "drivers") == "../drivers");
  CHECK(find_dir_upwards(above, "..", "overlays") == "../../overlays");
  CHECK(find_dir_upwards(above, "base", "overlays") == "../../overlays");
  CHECK(find_dir_upwards(above, "/srv/recipes", "drivers") == "");
}

TEST_CASE("fixed_rail_count: rail_count, else the listed rails, else 0") {
  Recipe r;
  CHECK(fixed_rail_count(r) == 0);
  r.hardware.rails = {"ens1", "ens2"};
  CHECK(fixed_rail_count(r) == 2);
  r.hardware.rail_count = 4;
  CHECK(fixed_rail_count(r) == 4);
}

TEST_CASE("hostile paths: every path key absolute and plain, never escaping --root, never empty") {
  for (const char* bad :
       {"/../../../../srv/x/nccl.conf", "/etc/./nccl.conf", "/etc//nccl.conf", "/etc/nccl/", "etc/nccl.conf"}) {
    CAPTURE(bad);
    for (const char* key : {"conf_path", "topo_file", "env_dir"}) {
      CAPTURE(key);
      auto r = load(std::string("\n[nccl]\n") + key + " = \"" + bad + "\"\n");
      CHECK(one(r.diags, std::string("nccl.") + key + ": '" + bad + "'") ==
            "r.toml:3:" + std::to_string(std::string(key).size() + 4));
    }
  }
  CHECK(
      one(load("\n[nccl]\nconf_path = \"/../../srv/x/nccl.conf\"\n").diags,
          "is not a plain path: no '.', '..' or empty components and no trailing '/' (it would be /srv/x/nccl.conf)") ==
      "r.toml:3:13");
  CHECK(one(load("\n[nccl]\nconf_path = \"\"\n").diags,
            "nccl.conf_path: an empty string; leave the key out for the default, \"/etc/nccl.conf\"") == "r.toml:3:13");
  CHECK(one(load("\n[join]\nreport_url = \"https://r.example/api\"\nca_file = \"/etc/../ca.pem\"\n").diags,
            "join.ca_file: '/etc/../ca.pem' is not a plain path") == "r.toml:4:11");
}

TEST_CASE("hostile names: '.' and '..' are not names of a recipe, an overlay or a package") {
  CHECK(one(load("\nname = \"..\"\n").diags, "name: '..' starts with '.'; a name starts with a-z or 0-9") ==
        "r.toml:2:8");
  CHECK(one(load("\n[image]\nsuite = \"bookworm\"\noverlays = [\"..\"]\n").diags,
            "image.overlays: element 0: '..' starts with '.'") == "r.toml:4:13");
  CHECK(one(load("\n[image]\nsuite = \"bookworm\"\npackages = [\"-oDebug::pkgProblemResolver=1\"]\n").diags,
            "image.packages: element 0: '-oDebug::pkgProblemResolver=1' starts with '-'") == "r.toml:4:13");
}

TEST_CASE("hostile values: no line break reaches nccl.conf, or any other file") {
  CHECK(
      one(load("\n[nccl]\ntopo_file = \"/etc/nccl/topo.xml\\nNCCL_IB_HCA==mlx5_bond_evil\"\n").diags,
          "nccl.topo_file: \"/etc/nccl/topo.xml\\x0aNCCL_IB_HCA==mlx5_bond_evil\" holds a control character (\\x0a)") ==
      "r.toml:3:13");
  CHECK(one(load("\n[nccl.extra]\nNCCL_IB_QPS_PER_CONNECTION = \"4\\nNCCL_NET_PLUGIN=/srv/evil.so\"\n").diags,
            "nccl.extra: key 'NCCL_IB_QPS_PER_CONNECTION': \"4\\x0aNCCL_NET_PLUGIN=/srv/evil.so\" holds a control "
            "character") == "r.toml:3:30");
  CHECK(one(load("\n[nccl.extra]\n\"NCCL_DEBUG\\nNCCL_SOCKET_IFNAME\" = \"eth0\"\n").diags,
            "nccl.extra: key 'NCCL_DEBUG\\x0aNCCL_SOCKET_IFNAME': ") == "r.toml:3:36");
  CHECK(one(load("\n[nccl.extra]\n\"NCCL_DEBUG=INFO #\" = \"x\"\n").diags,
            "'NCCL_DEBUG=INFO #' is not an NCCL variable name; allowed: NCCL_ then A-Z 0-9 _") == "r.toml:3:23");
  CHECK(one(load("\ndescription = \"one\\rtwo\"\n").diags,
            "description: \"one\\x0dtwo\" holds a control character (\\x0d)") == "r.toml:2:15");
  CHECK(all(load("\n[nccl.extra]\nNCCL_DEBUG = \"INFO\"\nNCCL_IB_QPS_PER_CONNECTION = \"4\"\n").diags) == "");
}

// ---------------------------------------------------------------------------------------------
// [fabric.lldp], [fabric.leaf]

TEST_CASE("[fabric.lldp]: a table inside [fabric], templates with {rail} and {unit} only") {
  auto ok = load(R"(
[fabric]
mtu = 4200
[fabric.lldp]
expect_system = "leaf-r{rail}"
required = true
)");
  CHECK(all(ok.diags) == "");
  CHECK(ok.recipe().fabric.mtu == 4200);
  CHECK(ok.recipe().lldp.expect_system == "leaf-r{rail}");
  CHECK(ok.recipe().lldp.required);
  CHECK(ok.recipe().lldp.wait_s == 35);
  CHECK(expand_lldp_template("leaf-r{rail}/{rail}", 3) == "leaf-r3/3");

  CHECK(one(load(R"(
[fabric.lldp]
expect_port = "swp {rail}"
)")
                .diags,
            "fabric.lldp.expect_port: 'swp {rail}' contains ' '; allowed are letters, digits, '-' and '.' (the "
            "host-name rule, with {rail} for the rail index and {unit} for the unit)") == "r.toml:3:15");
  // The system name names the leaf's files, the port a word of its FRR configuration.
  CHECK(one(load(R"(
[fabric.lldp]
expect_system = "leaf#{rail}"
)")
                .diags,
            "fabric.lldp.expect_system: 'leaf#{rail}' contains '#'") == "r.toml:3:17");
  CHECK(one(load(R"(
[fabric.lldp]
expect_port = "swp1;reboot"
)")
                .diags,
            "fabric.lldp.expect_port: 'swp1;reboot' contains ';'") == "r.toml:3:15");
  CHECK(one(load(R"(
[fabric.lldp]
expect_system = "leaf-{node}"
)")
                .diags,
            "the only placeholders are {rail} and {unit}") == "r.toml:3:17");
  CHECK(one(load(R"(
[fabric.lldp]
wait = 10
)")
                .diags,
            "unknown key 'fabric.lldp.wait'") == "r.toml:3:1");
}

TEST_CASE("[fabric.topology]: units as Slurm host ranges, one unit per node, {unit} only with units") {
  auto ok = load(R"(
[fabric.lldp]
expect_system = "{unit}-leaf{rail}"
[fabric.topology]
units = { su1 = "gpu[001-032]", su2 = "gpu[033-064],spare7" }
)");
  CHECK(all(ok.diags) == "");
  const Recipe& r = ok.recipe();
  CHECK(unit_of(r, "gpu017") == "su1");
  CHECK(unit_of(r, "gpu033") == "su2");
  CHECK(unit_of(r, "spare7") == "su2");
  CHECK(unit_of(r, "gpu065") == "");
  CHECK(unit_of(r, "gpu17") == "");  // the range's width is kept: gpu17 is another name
  auto index = unit_index(r);
  CHECK(index.size() == 65);
  CHECK(index.at("gpu064") == "su2");
  CHECK(lldp_names_unit(r));
  CHECK(expand_lldp_template(r.lldp.expect_system, 3, "su2") == "su2-leaf3");

  CHECK(one(load(R"(
[fabric.topology]
units = { su1 = "gpu[001-032]", su2 = "gpu[032-064]" }
)")
                .diags,
            "fabric.topology.units.su2: gpu032 is also in unit su1; a node is in one unit at most") == "r.toml:3:9");
  CHECK(one(load(R"(
[fabric.topology]
units = { su1 = "gpu[032-001]" }
)")
                .diags,
            "fabric.topology.units.su1: ") == "r.toml:3:9");
  CHECK(one(load(R"(
[fabric.topology]
units = { "su_1" = "gpu1" }
)")
                .diags,
            "su_1") == "r.toml:3:20");
  CHECK(one(load(R"(
[fabric.lldp]
expect_port = "swp{rail}-{unit}"
)")
                .diags,
            "fabric.lldp names {unit}, but [fabric.topology] names no units") == "r.toml:3:15");
}

TEST_CASE("[fabric.leaf]: the ports carry the rails' frames, ECN marks before it is total") {
  CHECK(one(load(R"(
[fabric]
vlan = 100
[fabric.leaf]
port_mtu = 9000
)")
                .diags,
            "fabric.leaf.port_mtu 9000 is below the rails' frames (9000 + 18 + 4 for the VLAN tag = 9022)") ==
        "r.toml:5:12");
  CHECK(one(load(R"(
[fabric.leaf]
ecn_min_kb = 2000
ecn_max_kb = 1000
)")
                .diags,
            "fabric.leaf.ecn_min_kb 2000 is above ecn_max_kb 1000") == "r.toml:3:14");
  // By default the ports take 9216, or the rails' frames when larger.
  Recipe r = load("\n[fabric]\nmtu = 9216\n").recipe();
  CHECK(leaf_port_mtu(r) == 9234);
  CHECK(leaf_port_mtu(load("\n").recipe()) == 9216);
}

TEST_CASE("a resolved recipe renders [fabric.lldp] inside [fabric], and reads back the same") {
  auto a = load(R"(
[fabric.lldp]
expect_system = "leaf-r{rail}"
[fabric.leaf]
pfc_watchdog_detect_ms = 300
)");
  REQUIRE(a.lr);
  std::string text = render_recipe_toml(a.recipe());
  CHECK(text.find("[fabric.lldp]") != std::string::npos);
  CHECK(text.find("expect_system = 'leaf-r{rail}'") != std::string::npos);
  auto b = load_alone(text);
  CHECK(all(b.diags) == "");
  CHECK(b.recipe().lldp.expect_system == "leaf-r{rail}");
  CHECK(b.recipe().leaf.pfc_watchdog_detect_ms == 300);
}

TEST_CASE("a resolved recipe with a vendor root filesystem reads back: no image.mirror beside image.rootfs_url") {
  auto a = load(R"(
[image]
rootfs_url = "https://vendor.example/rootfs.tar.zst"
rootfs_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)");
  REQUIRE(a.lr);
  CHECK(all(a.diags) == "");
  std::string text = render_recipe_toml(a.recipe());
  CHECK(text.find("\nmirror = ") == std::string::npos);
  auto b = load_alone(text);
  CHECK(all(b.diags) == "");
  CHECK(b.recipe().image.rootfs_url == "https://vendor.example/rootfs.tar.zst");
  CHECK(render_recipe_json(a.recipe()).find("\"mirror\"") == std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// selftest: the GPUs' health

TEST_CASE("selftest.gpu_fatal_xids: integers, the bad element named at its column") {
  auto ok = load(R"(
[selftest]
gpu_fatal_xids = [79, 48]
gpu_health = "best-effort"
)");
  CHECK(all(ok.diags) == "");
  CHECK(ok.recipe().selftest.gpu_fatal_xids == std::vector<int>{79, 48});
  CHECK(ok.recipe().selftest.gpu_health == Requirement::best_effort);
  auto bad = load(R"(
[selftest]
gpu_fatal_xids = [79, "48"]
)");
  CHECK(one(bad.diags, "selftest.gpu_fatal_xids: element 1: expected an integer (integers 1–9999), found a string") ==
        "r.toml:3:23");
}

TEST_CASE("selftest: GPUDirect's requirement and NCCL's keys, a bad path refused at its line") {
  auto ok = load(R"(
[selftest]
gpudirect = "best-effort"
nccl_allreduce_min_gbps = 300
nccl_all_reduce_perf = "/opt/nccl-tests/build/all_reduce_perf"
nccl_timeout_s = 120
)");
  CHECK(all(ok.diags) == "");
  CHECK(ok.recipe().selftest.gpudirect == Requirement::best_effort);
  CHECK(ok.recipe().selftest.nccl_allreduce_min_gbps == 300);
  CHECK(ok.recipe().selftest.nccl_all_reduce_perf == "/opt/nccl-tests/build/all_reduce_perf");
  CHECK(ok.recipe().selftest.nccl_timeout_s == 120);
  CHECK(one(load(R"(
[selftest]
nccl_all_reduce_perf = "build/all_reduce_perf"
)")
                .diags,
            "selftest.nccl_all_reduce_perf: 'build/all_reduce_perf' is not an absolute path") == "r.toml:3:24");
  CHECK(one(load(R"(
[selftest]
gpudirect = "maybe"
)")
                .diags,
            "selftest.gpudirect") == "r.toml:3:13");
  CHECK(one(load(R"(
[selftest]
nccl_timeout_s = 5
)")
                .diags,
            "selftest.nccl_timeout_s") == "r.toml:3:18");
}

// ---------------------------------------------------------------------------------------------
// [fabric.probe]

TEST_CASE("[fabric.probe]: every key at its default when the table is empty") {
  auto r = load(R"(
[fabric.probe]
)");
  CHECK(all(r.diags) == "");
  const ProbeSpec& p = r.recipe().probe;
  CHECK(p.required == Requirement::required);
  CHECK_FALSE(p.responder);
  CHECK(p.peers.empty());
  CHECK(p.port == 18515);
  CHECK(p.bytes == 16777216);
  CHECK(p.min_gbps == 0);
  CHECK(p.max_latency_us == 0);
  CHECK(p.timeout_ms == 10000);
  CHECK(p.max_peers == 16);
}

TEST_CASE("[fabric.probe]: every key read as written") {
  auto r = load(R"(
[fabric.probe]
required = "best-effort"
responder = true
peers = ["198.18.0.200", "198.18.1.200"]
port = 20000
bytes = 65536
max_latency_us = 12.5
timeout_ms = 5000
max_peers = 4
)");
  CHECK(all(r.diags) == "");
  const ProbeSpec& p = r.recipe().probe;
  CHECK(p.required == Requirement::best_effort);
  CHECK(p.responder);
  CHECK(p.peers == std::vector<std::string>{"198.18.0.200", "198.18.1.200"});
  CHECK(p.port == 20000);
  CHECK(p.bytes == 65536);
  CHECK(p.max_latency_us == 12.5);
  CHECK(p.timeout_ms == 5000);
  CHECK(p.max_peers == 4);
}

TEST_CASE("[fabric.probe]: min_gbps takes a float or an integer") {
  auto fraction = load(R"(
[fabric.probe]
min_gbps = 0.02
)");
  CHECK(all(fraction.diags) == "");
  CHECK(fraction.recipe().probe.min_gbps == 0.02);
  auto whole = load(R"(
[fabric.probe]
min_gbps = 25
)");
  CHECK(all(whole.diags) == "");
  CHECK(whole.recipe().probe.min_gbps == 25.0);
}

TEST_CASE("[fabric.probe]: min_gbps as a string is refused at its value, with the range") {
  CHECK(one(load(R"(
[fabric.probe]
min_gbps = "25"
)")
                .diags,
            "fabric.probe.min_gbps: expected a number (0–3200), found a string") == "r.toml:3:12");
}

TEST_CASE("[fabric.probe]: min_gbps out of range is refused at its value, with the range") {
  CHECK(one(load(R"(
[fabric.probe]
min_gbps = 3200.5
)")
                .diags,
            "fabric.probe.min_gbps: 3200.5 is out of range; allowed: 0–3200") == "r.toml:3:12");
  CHECK(one(load(R"(
[fabric.probe]
max_latency_us = -1
)")
                .diags,
            "fabric.probe.max_latency_us: -1 is out of range; allowed: 0–") == "r.toml:3:18");
  CHECK(one(load(R"(
[fabric.probe]
min_gbps = nan
)")
                .diags,
            "is out of range; allowed: 0–3200") == "r.toml:3:12");
}

// format_number() takes std::to_chars' shortest form, which writes 1000000 as "1e+06".
TEST_CASE("[fabric.probe]: max_latency_us's range is written in digits") {
  CHECK(one(load(R"(
[fabric.probe]
max_latency_us = 1000001
)")
                .diags,
            "fabric.probe.max_latency_us: 1000001 is out of range; allowed: 0–1000000") == "r.toml:3:18");
}

TEST_CASE("[fabric.probe]: peers give one address per rail") {
  CHECK(one(load(R"(
[fabric.probe]
peers = ["198.18.0.200"]
)")
                .diags,
            "fabric.probe.peers has 1 addresses for 2 rails: give one per rail, in rail order") == "r.toml:3:9");
}

TEST_CASE("[fabric.probe]: a peer outside its rail's subnet") {
  CHECK(one(load(R"(
[fabric.probe]
peers = ["198.18.0.200", "198.18.0.201"]
)")
                .diags,
            "fabric.probe.peers[1]: 198.18.0.201 is outside rail 1's subnet 198.18.1.0/24: a probe never leaves "
            "its rail") == "r.toml:3:26");
}

// The documented "" for a rail without a reference: schema::Fields::strings refuses every
// empty element before the key's own check (which allows "") runs.
TEST_CASE("[fabric.probe]: \"\" for a rail without a reference") {
  auto r = load(R"(
[fabric.probe]
peers = ["", "198.18.1.200"]
)");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lr);
  CHECK(r.recipe().probe.peers == std::vector<std::string>{"", "198.18.1.200"});
}

TEST_CASE("[fabric.probe]: a resolved recipe reads back the same numbers") {
  auto a = load(R"(
[fabric.probe]
min_gbps = 0.02
max_latency_us = 7
)");
  REQUIRE(a.lr);
  auto b = load_alone(render_recipe_toml(a.recipe()));
  CHECK(all(b.diags) == "");
  CHECK(b.recipe().probe.min_gbps == 0.02);
  CHECK(b.recipe().probe.max_latency_us == 7.0);
}
