// Driver bundle manifests (drivers/<bundle>.toml).
#include <doctest/doctest.h>

#include <string>

#include "driver_manifest.h"
#include "support/diagnostics_expect.h"

using namespace railyard;
using namespace railyard::test;

namespace {

struct Loaded {
  Diagnostics diags;
  std::optional<LoadedManifest> lm;
};

// Manifest `text` loaded as drivers/x.toml; `files` may hold other files (e.g. key files).
Loaded load(const std::string& text, MemorySource files = {}) {
  files.add("drivers/x.toml", text);
  Loaded out;
  out.lm = load_driver_manifest(files, "drivers/x.toml", out.diags);
  return out;
}

// A valid kind = "apt" manifest (8 lines, [apt] last).
const std::string kApt = R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_url = "https://vendor.example/key.asc"
)";

// A valid kind = "tarball" manifest.
const std::string kTarball = R"(
version = "1"
kind = "tarball"
[tarball]
url = "https://vendor.example/driver.tar.gz"
sha256 = ")" + std::string(64, 'a') +
                             R"("
install = ["./install.sh --silent"]
)";

}  // namespace

TEST_CASE("a minimal distro manifest: name from the file, kind distro") {
  auto r = load("version = \"44.0\"\npackages = [\"rdma-core\"]\n");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lm);
  CHECK(r.lm->manifest.name == "x");
  CHECK(r.lm->manifest.kind == DriverKind::distro);
  CHECK(r.lm->manifest.path == "drivers/x.toml");
}

TEST_CASE("name must equal the file stem") {
  CHECK(one(load("name = \"y\"\nversion = \"1\"\npackages = [\"rdma-core\"]\n").diags,
            "name 'y' must equal the file name 'x' (recipes refer to bundles by file name)") == "drivers/x.toml:1:8");
  CHECK(all(load("name = \"x\"\nversion = \"1\"\npackages = [\"rdma-core\"]\n").diags) == "");
}

TEST_CASE("version is required") {
  CHECK(one(load("packages = [\"rdma-core\"]\n").diags, "missing required key 'version'") == "drivers/x.toml:1:1");
}

TEST_CASE("kind distro needs packages") {
  CHECK(one(load("version = \"1\"\nkind = \"distro\"\n").diags, "kind = \"distro\" needs 'packages'") ==
        "drivers/x.toml:2:8");
  // kind left at its default: at the top of the file.
  CHECK(one(load("version = \"1\"\n").diags, "kind = \"distro\" needs 'packages'") == "drivers/x.toml:1:1");
}

TEST_CASE("a valid apt manifest with an https key URL and no fingerprint") {
  auto r = load(kApt);
  CHECK(all(r.diags) == "");
  REQUIRE(r.lm);
  CHECK(r.lm->manifest.kind == DriverKind::apt);
  CHECK(r.lm->manifest.apt.suite == "./");
}

TEST_CASE("kind apt needs uri, suite and a signing key") {
  auto r = load(R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
components = ["main"]
)");
  CHECK(r.diags.size() == 3);
  CHECK(at(r.diags, "kind = \"apt\" needs [apt] uri") == "drivers/x.toml:3:8");
  CHECK(at(r.diags, "kind = \"apt\" needs [apt] suite (\"./\" for a flat repository)") == "drivers/x.toml:3:8");
  CHECK(at(r.diags, "kind = \"apt\" needs a signing key: [apt] key_file, or key_url with key_fingerprint") ==
        "drivers/x.toml:3:8");
}

TEST_CASE("kind apt needs packages") {
  CHECK(one(load(R"(
version = "1"
kind = "apt"
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_url = "https://vendor.example/key.asc"
)")
                .diags,
            "kind = \"apt\" needs 'packages'") == "drivers/x.toml:3:8");
}

TEST_CASE("an http key URL needs a fingerprint") {
  std::string http = R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_url = "http://vendor.example/key.asc"
)";
  CHECK(one(load(http).diags, "apt.key_url is http://: add apt.key_fingerprint, or fetch the key over https://") ==
        "drivers/x.toml:8:11");
  CHECK(all(load(http + "key_fingerprint = \"EB693B3035CD5710E231E123A4B469963BF863CC\"\n").diags) == "");
}

TEST_CASE("a fingerprint needs a key URL") {
  MemorySource files;
  files.add("drivers/vendor.asc", "-----BEGIN PGP PUBLIC KEY BLOCK-----");
  CHECK(one(load(R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_file = "vendor.asc"
key_fingerprint = "EB693B3035CD5710E231E123A4B469963BF863CC"
)",
                 files)
                .diags,
            "apt.key_fingerprint needs apt.key_url (a key_file is trusted as shipped)") == "drivers/x.toml:9:19");
}

TEST_CASE("a fingerprint is 40 hex digits") {
  std::string text = R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_url = "https://vendor.example/key.asc"
key_fingerprint = "3BF863CC"
)";
  CHECK(one(load(text).diags, "apt.key_fingerprint: key fingerprint '3BF863CC' is not 40 hexadecimal digits") ==
        "drivers/x.toml:9:19");
}

TEST_CASE("key_file must exist next to the manifest") {
  std::string text = R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_file = "keys/vendor.asc"
)";
  CHECK(one(load(text).diags, "apt.key_file 'keys/vendor.asc' does not exist next to the manifest") ==
        "drivers/x.toml:8:12");
  MemorySource files;
  files.add("drivers/keys/vendor.asc", "-----BEGIN PGP PUBLIC KEY BLOCK-----");
  CHECK(all(load(text, files).diags) == "");
}

TEST_CASE("key_file must stay inside drivers/") {
  CHECK(at(load(R"(
version = "1"
kind = "apt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_file = "../secret.asc"
)")
               .diags,
           "apt.key_file: '../secret.asc' must be a path inside drivers/") == "drivers/x.toml:8:12");
}

TEST_CASE("a valid tarball manifest") {
  auto r = load(kTarball);
  CHECK(all(r.diags) == "");
  REQUIRE(r.lm);
  CHECK(r.lm->manifest.kind == DriverKind::tarball);
  CHECK(r.lm->manifest.tarball.install.size() == 1);
}

TEST_CASE("kind tarball needs url, sha256 and install") {
  auto r = load("version = \"1\"\nkind = \"tarball\"\n[tarball]\n");
  CHECK(r.diags.size() == 3);
  CHECK(at(r.diags, "kind = \"tarball\" needs [tarball] url") == "drivers/x.toml:2:8");
  CHECK(at(r.diags, "kind = \"tarball\" needs [tarball] sha256") == "drivers/x.toml:2:8");
  CHECK(at(r.diags, "kind = \"tarball\" needs [tarball] install") == "drivers/x.toml:2:8");
}

TEST_CASE("a bad sha256") {
  auto r = load(R"(
version = "1"
kind = "tarball"
[tarball]
url = "https://vendor.example/driver.tar.gz"
sha256 = "abc"
install = ["./install.sh"]
)");
  CHECK(at(r.diags, "tarball.sha256: 'abc' is not 64 hexadecimal digits") == "drivers/x.toml:6:10");
}

TEST_CASE("[apt] with kind distro, [tarball] with kind apt") {
  CHECK(one(load(R"(
version = "1"
packages = ["rdma-core"]
[apt]
uri = "https://vendor.example/repo/"
)")
                .diags,
            "[apt] is only used with kind = \"apt\"") == "drivers/x.toml:4:1");
  CHECK(one(load(kApt + "[tarball]\nurl = \"https://vendor.example/x.tgz\"\n").diags,
            "[tarball] is only used with kind = \"tarball\"") == "drivers/x.toml:9:1");
}

// A rejected value is reported once: the cross-key checks skip it rather than also call it missing.
TEST_CASE("a rejected value produces no cascade of manifest errors") {
  CHECK(one(load(R"(
version = "1"
kind = "aptt"
packages = ["doca-ofed"]
[apt]
uri = "https://vendor.example/repo/"
suite = "./"
key_url = "https://vendor.example/key.asc"
)")
                .diags,
            R"(kind: "aptt" is not allowed)") == "drivers/x.toml:3:8");
  CHECK(one(load("version = \"1\"\npackages = [\"rdma-core\", \"Bad Pkg\"]\n").diags,
            "packages: element 1: 'Bad Pkg' is not a package name") == "drivers/x.toml:2:26");
  CHECK(one(load(R"(
version = "1"
kind = "tarball"
[tarball]
url = "https://vendor.example/driver.tar.gz"
sha256 = "abc"
install = ["./install.sh"]
)")
                .diags,
            "tarball.sha256: 'abc' is not 64 hexadecimal digits") == "drivers/x.toml:6:10");
}

TEST_CASE("a bundle cannot conflict with itself") {
  CHECK(one(load("version = \"1\"\npackages = [\"rdma-core\"]\nconflicts = [\"other\", \"x\"]\n").diags,
            "a bundle cannot conflict with itself") == "drivers/x.toml:3:13");
  CHECK(all(load("version = \"1\"\npackages = [\"rdma-core\"]\nconflicts = [\"other\"]\n").diags) == "");
}

TEST_CASE("suites are distro:suite pairs") {
  CHECK(one(load("version = \"1\"\npackages = [\"rdma-core\"]\nsuites = [\"debian:bookworm\", \"bookworm\"]\n").diags,
            "suites: element 1: 'bookworm' is not \"distro:suite\"") == "drivers/x.toml:3:30");
  CHECK(one(load("version = \"1\"\npackages = [\"rdma-core\"]\nsuites = [\"fedora:40\"]\n").diags,
            "suites: element 0: 'fedora:40': distro must be debian or ubuntu") == "drivers/x.toml:3:11");
  CHECK(one(load("version = \"1\"\npackages = [\"rdma-core\"]\nsuites = [\"debian:\"]\n").diags,
            "'debian:' is not \"distro:suite\"") == "drivers/x.toml:3:11");
  CHECK(all(load("version = \"1\"\npackages = [\"rdma-core\"]\nsuites = [\"debian:bookworm\", \"ubuntu:noble\"]\n")
                .diags) == "");
}

TEST_CASE("package names") {
  CHECK(at(load("version = \"1\"\npackages = [\"rdma-core\", \"Bad Pkg\"]\n").diags,
           "packages: element 1: 'Bad Pkg' is not a package name") == "drivers/x.toml:2:26");
  CHECK(all(load("version = \"1\"\npackages = [\"nvidia-open-580\", \"libnccl2=2.27.*\", \"g++\"]\n").diags) == "");
}

TEST_CASE("supports: empty suites means any, else the listed pairs") {
  DriverManifest m;
  CHECK(m.supports("debian", "bookworm"));
  CHECK(m.supports("ubuntu", "noble"));
  m.suites = {"ubuntu:noble"};
  CHECK(m.supports("ubuntu", "noble"));
  CHECK_FALSE(m.supports("ubuntu", "jammy"));
  CHECK_FALSE(m.supports("debian", "noble"));
}

TEST_CASE("DriverKind names") {
  CHECK(to_string(DriverKind::distro) == "distro");
  CHECK(to_string(DriverKind::apt) == "apt");
  CHECK(to_string(DriverKind::tarball) == "tarball");
}

TEST_CASE("an unknown manifest key suggests the known one") {
  CHECK(one(load("version = \"1\"\npackage = [\"rdma-core\"]\npackages = [\"rdma-core\"]\n").diags,
            "unknown key 'package'; did you mean 'packages'?") == "drivers/x.toml:2:1");
}

namespace {

// A kind = "source" bundle drivers/x.toml with its tree drivers/mod/ and that dkms.conf.
Loaded load_source(const std::string& manifest, const std::string& dkms_conf) {
  MemorySource files;
  files.add_directory("drivers/mod");
  if (!dkms_conf.empty()) files.add("drivers/mod/dkms.conf", dkms_conf);
  return load(manifest, files);
}

const std::string kSource = R"(version = "1.0"
kind = "source"
dkms = ["lab-mod"]
emulates = ["dcb"]
[source]
dir = "mod"
)";

}  // namespace

TEST_CASE("a source bundle: its dkms.conf names the manifest's module and version") {
  auto r = load_source(kSource, "PACKAGE_NAME=\"lab-mod\"\nPACKAGE_VERSION=\"1.0\"\nAUTOINSTALL=\"yes\"\n");
  CHECK(all(r.diags) == "");
  REQUIRE(r.lm);
  CHECK(r.lm->manifest.kind == DriverKind::source);
  CHECK(r.lm->manifest.source_dir() == "drivers/mod");
  CHECK(r.lm->manifest.emulates_dcb());
  CHECK(r.lm->manifest.lab_stand_in());

  CHECK(one(load_source(kSource, "PACKAGE_NAME=\"lab-mod\"\nPACKAGE_VERSION=\"1.1\"\n").diags,
            "PACKAGE_VERSION \"1.1\" differs from the manifest's version \"1.0\" in drivers/x.toml") ==
        "drivers/mod/dkms.conf:2:1");
  CHECK(one(load_source(kSource, "PACKAGE_VERSION=1.0\n").diags,
            "PACKAGE_NAME is missing; it must be the manifest's dkms module \"lab-mod\"") ==
        "drivers/mod/dkms.conf:1:1");
  CHECK(one(load_source(kSource, "").diags, "drivers/mod/dkms.conf: No such file or directory (DKMS needs it)") ==
        "drivers/x.toml:6:7");
}

TEST_CASE("a source bundle needs its directory, one DKMS module and a version fit for a path") {
  CHECK(one(load("version = \"1\"\nkind = \"source\"\ndkms = [\"m\"]\n").diags,
            "kind = \"source\" needs [source] dir") == "drivers/x.toml:2:8");
  CHECK(one(load("version = \"1\"\nkind = \"source\"\ndkms = [\"m\"]\n[source]\ndir = \"absent\"\n").diags,
            "source.dir 'absent' is not a directory next to the manifest") == "drivers/x.toml:5:7");
  CHECK(one(load("version = \"1\"\nkind = \"source\"\n[source]\ndir = \"../elsewhere\"\n").diags,
            "'../elsewhere' must be a path inside drivers/") == "drivers/x.toml:4:7");
  CHECK(one(load_source("version = \"1.0\"\nkind = \"source\"\ndkms = [\"a\", \"b\"]\n[source]\ndir = \"mod\"\n",
                        "PACKAGE_NAME=a\nPACKAGE_VERSION=1.0\n")
                .diags,
            "kind = \"source\" builds one DKMS module: 'dkms' must name it (its dkms.conf PACKAGE_NAME)") ==
        "drivers/x.toml:3:8");
  CHECK(one(load_source("version = \"1 0\"\nkind = \"source\"\ndkms = [\"a\"]\n[source]\ndir = \"mod\"\n",
                        "PACKAGE_NAME=a\nPACKAGE_VERSION=\"1 0\"\n")
                .diags,
            "version '1 0' becomes /usr/src/a-1 0; allowed: letters, digits and . _ + ~ - (up to 64)") ==
        "drivers/x.toml:1:11");
  CHECK(one(load("version = \"1\"\npackages = [\"x\"]\n[source]\ndir = \"mod\"\n").diags,
            "[source] is only used with kind = \"source\"") == "drivers/x.toml:3:1");
}

TEST_CASE("emulates takes only what a lab bundle can emulate") {
  CHECK(one(load("version = \"1\"\npackages = [\"x\"]\nemulates = [\"gpu\"]\n").diags,
            "'gpu' cannot be emulated; allowed: \"dcb\"") == "drivers/x.toml:3:13");
}
