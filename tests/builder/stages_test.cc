// The build stages' pure parts (command lines, apt files, DKMS status, module dependencies,
// dpkg status, boot.ipxe) and the stages that only touch files (overlays, hygiene), run on
// small trees with a runner that records commands instead of running them.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <thread>
#include <unistd.h>

#include <httplib.h>

#include "builder/temp_dir.h"
#include "io/disk_source.h"
#include "recipe_loader.h"
#include "image/stages/agent.h"
#include "image/stages/apt.h"
#include "join_gate.h"
#include "image/stages/apt_key.h"
#include "image/stages/base.h"
#include "image/stages/drivers.h"
#include "image/stages/manifest.h"
#include "image/stages/stage.h"
#include "image/stages/trim.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

class RecordingRunner : public CommandRunner {
 public:
  std::vector<Command> commands;
  std::function<void(const Command&)> on_run;
  // Answers captures (e.g. by running gpg for real); empty output otherwise.
  std::function<Outcome<std::string>(const Command&)> on_capture;
  Status run(const Command& c) override {
    commands.push_back(c);
    if (on_run) on_run(c);
    return success();
  }
  Outcome<std::string> capture(const Command& c) override {
    commands.push_back(c);
    if (on_capture) return on_capture(c);
    return std::string();
  }
};

ImageSpec debian_image() {
  ImageSpec i;
  i.distro = Distro::debian;
  i.suite = "bookworm";
  i.mirror = "host";
  i.components = {"main"};
  i.kernel = "linux-image-amd64";
  i.packages = {"systemd-sysv", "udev"};
  return i;
}

}  // namespace

TEST_CASE("base: mmdebstrap from the host's apt sources, every source file as a mirror") {
  Command c =
      bootstrap_command(debian_image(), "/w/root", {"/etc/apt/sources.list", "/etc/apt/sources.list.d/x.sources"}, 42);
  CHECK(shell_quote(c.argv) ==
        "mmdebstrap --mode=root --variant=minbase --arch=amd64 --components=main "
        "--include=linux-image-amd64,systemd-sysv,udev '--aptopt=Acquire::Retries \"3\"' "
        "'--aptopt=APT::Install-Recommends \"false\"' --skip=cleanup/apt/lists "
        "'--essential-hook=chroot \"$1\" dpkg-divert --quiet --local --rename --divert "
        "/usr/sbin/update-initramfs.railyard "
        "--add /usr/sbin/update-initramfs && printf '\\''#!/bin/sh\\n# railyard build: the image is the initramfs; "
        "hygiene "
        "restores this\\nexit 0\\n'\\'' > \"$1/usr/sbin/update-initramfs\" && chmod 0755 "
        "\"$1/usr/sbin/update-initramfs\"' "
        "bookworm /w/root /etc/apt/sources.list /etc/apt/sources.list.d/x.sources");
  CHECK(c.env.at("SOURCE_DATE_EPOCH") == "42");
}

TEST_CASE("base: the recipe's dpkg path filters go to mmdebstrap, which keeps them in the image") {
  ImageSpec i = debian_image();
  i.path_exclude = {"/usr/share/doc/*", "/usr/share/man/*"};
  i.path_include = {"/usr/share/doc/*/copyright"};
  CHECK(dpkg_path_filters(i) == std::vector<std::string>{"path-exclude=/usr/share/doc/*",
                                                         "path-exclude=/usr/share/man/*",
                                                         "path-include=/usr/share/doc/*/copyright"});
  Command c = bootstrap_command(i, "/w/root", {"/etc/apt/sources.list"}, 0);
  auto at = [&](const std::string& arg) { return std::find(c.argv.begin(), c.argv.end(), arg) - c.argv.begin(); };
  // Excludes, then includes: dpkg lets the last matching filter decide.
  CHECK(at("--dpkgopt=path-exclude=/usr/share/doc/*") < at("--dpkgopt=path-include=/usr/share/doc/*/copyright"));
  CHECK(at("--dpkgopt=path-include=/usr/share/doc/*/copyright") < at("bookworm"));
  CHECK(dpkg_path_filters(debian_image()).empty());
}

TEST_CASE("base: Ubuntu suites bootstrap with Ubuntu's keyring and the recipe's mirror and components") {
  ImageSpec i = debian_image();
  i.distro = Distro::ubuntu;
  i.suite = "noble";
  i.mirror = "http://archive.ubuntu.com/ubuntu";
  i.components = {"main", "restricted", "universe"};
  i.kernel = "linux-image-generic";
  Command c = bootstrap_command(i, "/w/root", {"/etc/apt/sources.list"}, 0);
  auto hook = std::find(c.argv.begin(), c.argv.end(), "--essential-hook=" + divert_initramfs_script());
  REQUIRE(hook != c.argv.end());
  c.argv.erase(hook);
  CHECK(shell_quote(c.argv) ==
        "mmdebstrap --mode=root --variant=minbase --arch=amd64 --components=main,restricted,universe "
        "--include=linux-image-generic,systemd-sysv,udev '--aptopt=Acquire::Retries \"3\"' "
        "'--aptopt=APT::Install-Recommends \"false\"' --skip=cleanup/apt/lists "
        "--keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg noble /w/root http://archive.ubuntu.com/ubuntu");
}

TEST_CASE("drivers: a vendor repository is signed by its own key, flat repositories have no components") {
  DriverManifest m;
  m.name = "doca-ofed-2.10.0";
  m.version = "2.10.0";
  m.apt.uri = "https://linux.mellanox.com/public/repo/doca/2.10.0/ubuntu24.04/x86_64/";
  m.apt.suite = "./";
  CHECK(keyring_path(m, true) == "/usr/share/keyrings/railyard-doca-ofed-2.10.0.asc");
  CHECK(keyring_path(m, false) == "/usr/share/keyrings/railyard-doca-ofed-2.10.0.gpg");
  CHECK(apt_source_deb822(m, keyring_path(m, true)) ==
        "# doca-ofed-2.10.0 2.10.0, written by railyard build\n"
        "Types: deb\nURIs: https://linux.mellanox.com/public/repo/doca/2.10.0/ubuntu24.04/x86_64/\nSuites: ./\n"
        "Signed-By: /usr/share/keyrings/railyard-doca-ofed-2.10.0.asc\n");
  CHECK(apt_pin(m).empty());
  m.apt.components = {"main"};
  m.apt.suite = "noble";
  m.apt.pin_priority = 1001;
  CHECK(apt_source_deb822(m, "/k.gpg").find("Suites: noble\nComponents: main\nSigned-By: /k.gpg\n") !=
        std::string::npos);
  CHECK(apt_pin(m) ==
        "# doca-ofed-2.10.0 2.10.0: prefer its packages over the distribution's\n"
        "Package: *\nPin: origin linux.mellanox.com\nPin-Priority: 1001\n");
  // apt's origin has no port (nor credentials): a pin naming one would match nothing.
  m.apt.uri = "http://mirror:secret@127.0.0.1:8080/ofed/";
  CHECK(apt_pin(m).find("\nPin: origin 127.0.0.1\n") != std::string::npos);
  // apt ignores a preferences.d file whose extension is not ".pref": a bundle's name has dots.
  CHECK(apt_pin_path(m) == "/etc/apt/preferences.d/railyard-doca-ofed-2.10.0.pref");
}

TEST_CASE("drivers: apt's refusals are told in terms of the bundle they concern") {
  DriverManifest ofed, cuda, inbox;
  ofed.name = "labofed-1.0";
  ofed.version = "1.0";
  ofed.path = "drivers/labofed-1.0.toml";
  ofed.kind = DriverKind::apt;
  ofed.packages = {"labofed"};
  ofed.apt.uri = "http://127.0.0.1:8080/ofed-1.0/";
  ofed.apt.key_fingerprint = "7F0DD9CCFD55C10F7BE03A24870B157A0083CB64";
  cuda = ofed;
  cuda.name = "labpeermem-1.0";
  cuda.path = "drivers/labpeermem-1.0.toml";
  cuda.packages = {"labpeermem-dkms"};
  cuda.apt.uri = "http://127.0.0.1:8080/cuda";
  inbox.name = "debian12-inbox";
  inbox.version = "44.0-2";
  inbox.path = "drivers/debian12-inbox.toml";
  inbox.kind = DriverKind::distro;
  inbox.packages = {"rdma-core"};
  const std::vector<DriverManifest> bundles = {inbox, ofed, cuda};

  const std::string unsigned_repo =
      "Ign:1 http://127.0.0.1:8080/ofed-1.0 ./ InRelease\n"
      "Get:2 http://127.0.0.1:8080/ofed-1.0 ./ Release [309 B]\n"
      "Reading package lists...\n"
      "E: The repository 'http://127.0.0.1:8080/ofed-1.0 ./ Release' is not signed.\n";
  CHECK(explain_apt_failure(unsigned_repo, bundles, "") ==
        "drivers/labofed-1.0.toml: bundle labofed-1.0 1.0: its repository http://127.0.0.1:8080/ofed-1.0/ is not "
        "signed (no InRelease, no Release.gpg); apt installs from signed repositories only");

  const std::string other_key =
      "Err:1 http://127.0.0.1:8080/cuda ./ InRelease\n"
      "  The following signatures couldn't be verified because the public key is not available: NO_PUBKEY "
      "0648AA8AAA45D67A\n"
      "W: GPG error: http://127.0.0.1:8080/cuda ./ InRelease: The following signatures couldn't be verified because "
      "the "
      "public key is not available: NO_PUBKEY 0648AA8AAA45D67A\n"
      "E: The repository 'http://127.0.0.1:8080/cuda ./ InRelease' is not signed.\n";
  std::string why = explain_apt_failure(other_key, bundles, "");
  CHECK(
      why.rfind("drivers/labpeermem-1.0.toml: bundle labpeermem-1.0 1.0: its repository http://127.0.0.1:8080/cuda is "
                "signed by key 0648AA8AAA45D67A, not by the bundle's key (7F0DD9CCFD55C10F7BE03A24870B157A0083CB64)",
                0) == 0);
  CHECK(why.find('\n') == std::string::npos);

  // A missing package is the bundle's that lists it, else the one being installed.
  CHECK(explain_apt_failure("E: Unable to locate package labpeermem-dkms\n", bundles, "labofed-1.0") ==
        "drivers/labpeermem-1.0.toml: bundle labpeermem-1.0 1.0: package labpeermem-dkms is in none of the image's "
        "repositories (its own, http://127.0.0.1:8080/cuda, nor the distribution's)");
  CHECK(explain_apt_failure("E: Package 'labofed-tools' has no installation candidate\n", bundles, "labofed-1.0")
            .find("bundle labofed-1.0 1.0: package labofed-tools is in none") != std::string::npos);
  CHECK(explain_apt_failure("E: Unable to locate package rdma-core\n", bundles, "debian12-inbox") ==
        "drivers/debian12-inbox.toml: bundle debian12-inbox 44.0-2: package rdma-core is in none of the image's "
        "repositories");
  CHECK(
      explain_apt_failure("E: Failed to fetch http://127.0.0.1:8080/ofed-1.0/./Packages  404  Not Found\n", bundles, "")
          .find("bundle labofed-1.0 1.0: apt found nothing at http://127.0.0.1:8080/ofed-1.0/./Packages (404)") !=
      std::string::npos);
  // apt's trouble with the distribution's own archive names no bundle.
  CHECK(explain_apt_failure("E: Failed to fetch http://mirror.invalid/debian/dists/bookworm/InRelease  404\n", bundles,
                            "")
            .empty());
}

TEST_CASE("drivers: each DKMS module records its own files, not every module under updates") {
  const std::vector<std::string> updates = {"lib/modules/6.1.0-57-amd64/updates/dkms/labofed.ko",
                                            "lib/modules/6.1.0-57-amd64/updates/dkms/labpeermem.ko",
                                            "lib/modules/6.1.0-57-amd64/updates/dkms/railyard_lab_qos.ko"};
  CHECK(dkms_module_files(updates, {"labpeermem.ko"}) ==
        std::vector<std::string>{"lib/modules/6.1.0-57-amd64/updates/dkms/labpeermem.ko"});
  CHECK(dkms_module_files(updates, {"railyard_lab_qos.ko", "labofed.ko"}) ==
        std::vector<std::string>{"lib/modules/6.1.0-57-amd64/updates/dkms/labofed.ko",
                                 "lib/modules/6.1.0-57-amd64/updates/dkms/railyard_lab_qos.ko"});
  CHECK(dkms_module_files(updates, {"other.ko"}).empty());
}

TEST_CASE("drivers: dkms status is read for the image's kernel only") {
  std::string status =
      "mlnx-ofed-kernel/24.10.OFED.24.10.1.1.4.1, 6.8.0-31-generic, x86_64: installed\n"
      "mlnx-ofed-kernel/24.10.OFED.24.10.1.1.4.1, 6.5.0-1-generic, x86_64: installed\n"
      "mlnx-nvme/24.10, 6.8.0-31-generic, x86_64: built\n"
      "v4l2loopback/0.12.7, 6.8.0-31-generic, x86_64: installed (WARNING! Diff between built and installed module!)\n";
  auto built = parse_dkms_status(status, "6.8.0-31-generic");
  REQUIRE(built.size() == 2);
  CHECK(built[0].module == "mlnx-ofed-kernel");
  CHECK(built[0].version == "24.10.OFED.24.10.1.1.4.1");
  CHECK(built[0].kernel == "6.8.0-31-generic");
  CHECK(built[1].module == "v4l2loopback");
  CHECK(parse_dkms_status("", "x").empty());
}

TEST_CASE("trim: modules elsewhere that need a dropped one are found, transitive needs included") {
  std::string dep =
      "kernel/sound/core/snd.ko: kernel/sound/core/snd-timer.ko\n"
      "kernel/drivers/media/rc/rc-core.ko:\n"
      "kernel/drivers/hid/hid-picolcd.ko: kernel/drivers/media/rc/rc-core.ko kernel/drivers/hid/hid.ko\n"
      "kernel/drivers/usb/gadget/function/usb_f_midi.ko: kernel/drivers/usb/gadget/libcomposite.ko "
      "kernel/sound/core/snd.ko\n"
      "kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko\n";
  CHECK(stranded_modules(dep, {"sound"}) ==
        std::vector<std::string>{"kernel/drivers/usb/gadget/function/usb_f_midi.ko"});
  CHECK(stranded_modules(dep, {"sound", "drivers/media"}) ==
        std::vector<std::string>{"kernel/drivers/hid/hid-picolcd.ko",
                                 "kernel/drivers/usb/gadget/function/usb_f_midi.ko"});
  CHECK(stranded_modules(dep, {"drivers/media", "drivers/hid"}).empty());
  CHECK(stranded_modules(dep, {}).empty());
  CHECK(is_dropped("kernel/sound/x.ko", {"sound"}));
  CHECK_FALSE(is_dropped("kernel/soundwire/x.ko", {"sound"}));
}

TEST_CASE("manifest: installed packages from dpkg's status, sorted; half-installed ones left out") {
  std::string status =
      "Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:1.2.13.dfsg-1\n"
      "Description: compression\n multi-line\n\n"
      "Package: bash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.2.15-2+b7\n\n"
      "Package: gone\nStatus: deinstall ok config-files\nVersion: 1\n";
  auto p = installed_packages(status);
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "bash");
  CHECK(p[0].version == "5.2.15-2+b7");
  CHECK(p[1].name == "zlib1g");
  CHECK(p[1].arch == "amd64");
}

TEST_CASE("boot.ipxe names the kernel, every initrd in order, and the command line") {
  std::string s = boot_ipxe("qemu-virt", "6.1.0-28-amd64", {"console=ttyS0", "panic=-1"},
                            {"rootfs-00.cpio.zst", "rootfs-01.cpio.zst"});
  CHECK(s.starts_with("#!ipxe\n# qemu-virt: kernel 6.1.0-28-amd64, built by railyard "));
  CHECK(s.find("\nkernel vmlinuz console=ttyS0 panic=-1 initrd=rootfs-00.cpio.zst initrd=rootfs-01.cpio.zst\n"
               "initrd rootfs-00.cpio.zst\ninitrd rootfs-01.cpio.zst\nboot\n") != std::string::npos);
}

namespace {

struct StageFixture {
  TempDir tmp;
  OpenSslHasher hasher;
  RecordingRunner runner;
  LoadedRecipe lr;
  BuildPlan plan;
  ContentDigests digests;
  StageFixture() {
    DiskSource disk;
    Diagnostics diags;
    auto loaded =
        load_recipe(disk, std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml", RecipeOptions{}, diags);
    REQUIRE(loaded);
    lr = *loaded;
  }
  StageContext context() {
    InputLocations where{tmp / "overlays", "", tmp / "apt"};
    return StageContext{lr,    plan,    tmp / "root", tmp / "image", tmp / "downloads",
                        where, digests, runner,       hasher,        [](const std::string&) {}};
  }
};

// Files served over HTTP on 127.0.0.1 for the length of a test.
class LocalServer {
 public:
  explicit LocalServer(std::map<std::string, std::string> files) : files_(std::move(files)) {
    server_.Get(R"(/(.*))", [this](const httplib::Request& req, httplib::Response& res) {
      auto it = files_.find(req.matches[1].str());
      if (it == files_.end()) {
        res.status = 404;
        return;
      }
      ++hits[it->first];
      res.set_content(it->second, "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~LocalServer() {
    server_.stop();
    thread_.join();
  }
  std::string url(const std::string& name) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + name; }
  std::map<std::string, int> hits;

 private:
  std::map<std::string, std::string> files_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

unsigned mode_of(const std::string& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("overlays are copied in recipe order, later ones win, modes kept and links stored as links") {
  StageFixture f;
  f.lr.recipe.image.overlays = {"first", "second"};
  f.tmp.write("overlays/first/etc/motd", "first\n");
  f.tmp.write("overlays/first/usr/local/bin/tool", "#!/bin/sh\n", 0750);
  f.tmp.write("overlays/second/etc/motd", "second\n", 0600);
  fs::create_symlink("motd", f.tmp / "overlays/second/etc/issue");
  f.tmp.write("root/etc/motd", "from the base\n");
  StageContext ctx = f.context();
  Status s = run_overlays(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(read_all(f.tmp / "root/etc/motd") == "second\n");
  CHECK(mode_of(f.tmp / "root/etc/motd") == 0600);
  CHECK(mode_of(f.tmp / "root/usr/local/bin/tool") == 0750);
  CHECK(fs::read_symlink(f.tmp / "root/etc/issue") == "motd");

  f.lr.recipe.image.overlays = {"missing"};
  Status missing = run_overlays(ctx);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error() == "overlay missing: no directory " + (f.tmp / "overlays/missing"));
}

TEST_CASE("hygiene empties the machine id and removes host keys, NVMe identity, apt lists and logs") {
  StageFixture f;
  f.tmp.write("root/etc/machine-id", "0123456789abcdef0123456789abcdef\n");
  f.tmp.write("root/etc/ssh/ssh_host_ed25519_key", "secret", 0600);
  f.tmp.write("root/etc/ssh/ssh_host_ed25519_key.pub", "public");
  f.tmp.write("root/etc/ssh/sshd_config", "kept\n");
  f.tmp.write("root/etc/nvme/hostnqn", "nqn.2014-08.org.nvmexpress:uuid:1\n");
  f.tmp.write("root/etc/nvme/hostid", "1\n");
  f.tmp.write("root/etc/munge/munge.key", "cluster secret", 0400);
  f.tmp.write("root/var/lib/apt/lists/mirror.example_dists_bookworm_InRelease", "x");
  f.tmp.write("root/var/log/apt/history.log", "x");
  f.tmp.write("root/var/log/dpkg.log", "x");
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(read_all(f.tmp / "root/etc/machine-id").empty());
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/ssh/ssh_host_ed25519_key"));
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/ssh/ssh_host_ed25519_key.pub"));
  CHECK(fs::exists(f.tmp / "root/etc/ssh/sshd_config"));
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/nvme/hostnqn"));
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/nvme/hostid"));
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/munge/munge.key"));
  CHECK(fs::is_empty(f.tmp / "root/var/lib/apt/lists"));
  CHECK(fs::is_directory(f.tmp / "root/var/log/apt"));  // packages expect their log directories
  CHECK_FALSE(fs::exists(f.tmp / "root/var/log/dpkg.log"));
  CHECK(f.runner.commands.empty());
}

TEST_CASE("hygiene masks the generators a root in RAM never needs, where the image has them and nothing for them") {
  StageFixture f;
  const fs::path gens = f.tmp / "root/usr/lib/systemd/system-generators",
                 masks = f.tmp / "root/etc/systemd/system-generators";
  for (const char* g :
       {"systemd-gpt-auto-generator", "systemd-hibernate-resume-generator", "systemd-cryptsetup-generator",
        "systemd-veritysetup-generator", "systemd-getty-generator", "systemd-fstab-generator"})
    f.tmp.write(std::string("root/usr/lib/systemd/system-generators/") + g, "#!/bin/sh\n");
  f.tmp.write("root/etc/veritytab", "root /dev/sda1 /dev/sda2 0123\n");  // an operator's: its generator keeps working
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (const char* masked :
       {"systemd-gpt-auto-generator", "systemd-hibernate-resume-generator", "systemd-cryptsetup-generator"}) {
    CAPTURE(masked);
    REQUIRE(fs::is_symlink(masks / masked));
    CHECK(fs::read_symlink(masks / masked) == "/dev/null");
    CHECK(fs::exists(gens / masked));  // the package stays whole
  }
  // Held off by the image's /etc/veritytab; not in the list; not in the image.
  for (const char* kept : {"systemd-veritysetup-generator", "systemd-getty-generator", "systemd-fstab-generator",
                           "systemd-integritysetup-generator", "systemd-system-update-generator"}) {
    CAPTURE(kept);
    CHECK_FALSE(fs::exists(fs::symlink_status(masks / kept)));
  }
  // A second run finds them masked.
  StageContext again = f.context();
  REQUIRE(run_hygiene(again).ok());
  CHECK(fs::read_symlink(masks / "systemd-gpt-auto-generator") == "/dev/null");
}

TEST_CASE("hygiene masks the units for a root on a disk that systemd would start at every boot") {
  StageFixture f;
  const fs::path units = f.tmp / "root/usr/lib/systemd/system", masks = f.tmp / "root/etc/systemd/system";
  for (const char* u : {"systemd-remount-fs.service", "systemd-repart.service", "systemd-fsck-root.service"})
    f.tmp.write(std::string("root/usr/lib/systemd/system/") + u, "[Unit]\n");
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (const char* masked : {"systemd-remount-fs.service", "systemd-repart.service"}) {
    CAPTURE(masked);
    REQUIRE(fs::is_symlink(masks / masked));
    CHECK(fs::read_symlink(masks / masked) == "/dev/null");
    CHECK(fs::exists(units / masked));  // the package stays whole
  }
  CHECK_FALSE(fs::exists(fs::symlink_status(masks / "systemd-fsck-root.service")));  // not in the list
}

TEST_CASE("hygiene disables the timers and boot units a stateless node never needs, removing only the links") {
  StageFixture f;
  const fs::path units = f.tmp / "root/lib/systemd/system",
                 wants = f.tmp / "root/etc/systemd/system/timers.target.wants";
  fs::create_directories(wants);
  for (const char* timer : {"apt-daily", "apt-daily-upgrade", "e2scrub_all", "fstrim", "dpkg-db-backup", "logrotate"}) {
    f.tmp.write(std::string("root/lib/systemd/system/") + timer + ".timer", "[Timer]\n");
    fs::create_symlink(std::string("/lib/systemd/system/") + timer + ".timer", wants / (std::string(timer) + ".timer"));
  }
  const fs::path multi = f.tmp / "root/etc/systemd/system/multi-user.target.wants";
  fs::create_directories(multi);
  fs::create_symlink("/lib/systemd/system/e2scrub_reap.service", multi / "e2scrub_reap.service");
  fs::create_symlink("/lib/systemd/system/ssh.service", multi / "ssh.service");
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (const char* gone : {"apt-daily", "apt-daily-upgrade", "e2scrub_all", "fstrim", "dpkg-db-backup"}) {
    CAPTURE(gone);
    CHECK_FALSE(fs::exists(fs::symlink_status(wants / (std::string(gone) + ".timer"))));
    CHECK(fs::exists(units / (std::string(gone) + ".timer")));  // the unit stays; only its enablement goes
  }
  CHECK(fs::is_symlink(wants / "logrotate.timer"));
  CHECK_FALSE(fs::exists(fs::symlink_status(multi / "e2scrub_reap.service")));
  CHECK(fs::is_symlink(multi / "ssh.service"));
}

TEST_CASE("hygiene creates sysusers.d's users at build time and stamps /etc, so no boot redoes it") {
  StageFixture f;
  f.tmp.write("root/usr/bin/systemd-sysusers", "#!/bin/sh\n", 0755);
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  REQUIRE(f.runner.commands.size() == 1);
  CHECK(shell_quote(f.runner.commands[0].argv).find((f.tmp / "root") + " systemd-sysusers") != std::string::npos);
  CHECK(read_all(f.tmp / "root/etc/.updated").find("ConditionNeedsUpdate=/etc") != std::string::npos);

  StageFixture bare;  // no systemd: nothing to stamp
  StageContext bare_ctx = bare.context();
  REQUIRE(run_hygiene(bare_ctx).ok());
  CHECK(bare.runner.commands.empty());
  CHECK_FALSE(fs::exists(bare.tmp / "root/etc/.updated"));
}

TEST_CASE("hygiene undoes the build's update-initramfs diversion and the initrd links it left dangling") {
  StageFixture f;
  f.tmp.write("root/var/lib/dpkg/diversions", "/usr/sbin/update-initramfs\n/usr/sbin/update-initramfs.railyard\n:\n");
  f.tmp.write("root/usr/sbin/update-initramfs", "#!/bin/sh\nexit 0\n", 0755);
  f.tmp.write("root/boot/vmlinuz-6.1.0-28-amd64", "kernel");
  fs::create_symlink("boot/initrd.img-6.1.0-28-amd64", f.tmp / "root/initrd.img");
  fs::create_symlink("/boot/initrd.img-6.1.0-28-amd64", f.tmp / "root/initrd.img.old");
  fs::create_symlink("boot/vmlinuz-6.1.0-28-amd64", f.tmp / "root/vmlinuz");
  StageContext ctx = f.context();
  Status s = run_hygiene(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  REQUIRE(f.runner.commands.size() == 1);
  CHECK(f.runner.commands[0].argv.back() == f.tmp / "root");
  CHECK(f.runner.commands[0].argv[2].find("dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(fs::symlink_status(f.tmp / "root/initrd.img")));
  CHECK_FALSE(fs::exists(fs::symlink_status(f.tmp / "root/initrd.img.old")));
  CHECK(fs::is_symlink(f.tmp / "root/vmlinuz"));

  // Without the diversion (a vendor root filesystem that had everything), nothing is run.
  f.tmp.write("root/var/lib/dpkg/diversions", "");
  f.runner.commands.clear();
  REQUIRE(run_hygiene(ctx).ok());
  CHECK(f.runner.commands.empty());
}

TEST_CASE("trim drops the recipe's module directories and what needs them, reruns depmod in the image, records it") {
  StageFixture f;
  f.lr.recipe.image.drop_modules = {"sound", "drivers/media", "sound"};
  std::string mods = "root/lib/modules/6.1.0-28-amd64/";
  f.tmp.write(mods + "modules.dep",
              "kernel/sound/snd.ko:\nkernel/drivers/net/virtio_net.ko:\nkernel/drivers/hid/hid-prodikeys.ko: "
              "kernel/sound/snd.ko\n");
  f.tmp.write(mods + "kernel/sound/snd.ko", std::string(1000, 'x'));
  f.tmp.write(mods + "kernel/drivers/hid/hid-prodikeys.ko", std::string(24, 'z'));
  f.tmp.write(mods + "kernel/drivers/net/virtio_net.ko", "y");
  StageContext ctx = f.context();
  Status s = run_trim(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK_FALSE(fs::exists(f.tmp / (mods + "kernel/sound")));
  CHECK(fs::exists(f.tmp / (mods + "kernel/drivers/net/virtio_net.ko")));
  CHECK_FALSE(fs::exists(f.tmp / (mods + "kernel/drivers/hid/hid-prodikeys.ko")));
  REQUIRE(f.runner.commands.size() == 1);
  const auto& argv = f.runner.commands[0].argv;
  CHECK(std::vector<std::string>(argv.end() - 3, argv.end()) ==
        std::vector<std::string>{"depmod", "-a", "6.1.0-28-amd64"});
  CHECK(argv[0] == "unshare");
  std::string record = read_all(f.tmp / "root/usr/share/railyard/image/trim.json");
  CHECK(record.find("\"dropped\": [\n    \"drivers/media\",\n    \"sound\"\n  ]") != std::string::npos);
  CHECK(record.find("\"files\": 2,") != std::string::npos);
  CHECK(record.find("\"bytes\": 1024,") != std::string::npos);
  CHECK(record.find("\"stranded\": [\n    \"kernel/drivers/hid/hid-prodikeys.ko\"\n  ]") != std::string::npos);

  f.tmp.write(mods + "lib/extra", "");
  fs::create_directories(f.tmp / "root/lib/modules/6.2.0");
  Status two = run_trim(ctx);
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().find("expected one kernel, found ") != std::string::npos);
}

TEST_CASE("drivers: a tarball bundle is fetched, verified, unpacked in the image and its install commands run there") {
  StageFixture f;
  f.tmp.write("src/bundle-1.0/install.sh", "#!/bin/sh\necho installing\n", 0755);
  REQUIRE(std::system(("tar -C " + (f.tmp / "src") + " -czf " + (f.tmp / "bundle.tgz") + " bundle-1.0").c_str()) == 0);
  std::string body = read_all(f.tmp / "bundle.tgz");
  httplib::Server server;
  server.Get("/bundle.tgz", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, "application/octet-stream");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  REQUIRE(port > 0);
  std::thread serving([&] { server.listen_after_bind(); });

  DriverManifest m;
  m.name = "vendor-1.0";
  m.version = "1.0";
  m.kind = DriverKind::tarball;
  m.tarball.url = "http://127.0.0.1:" + std::to_string(port) + "/bundle.tgz";
  m.tarball.sha256 = f.hasher.sha256_hex(body);
  m.tarball.install = {"./bundle-1.0/install.sh --kernel-only"};
  f.lr.drivers = {LoadedManifest{m, {}}};
  f.tmp.write("root/lib/modules/6.1.0-28-amd64/modules.dep", "");
  bool unpacked_when_run = false;
  f.runner.on_run = [&](const Command& c) {
    if (c.argv.back().find("install.sh") != std::string::npos)
      unpacked_when_run = fs::exists(f.tmp / "root/var/tmp/railyard-vendor-1.0/bundle-1.0/install.sh");
  };
  StageContext ctx = f.context();
  Status s = run_drivers(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(unpacked_when_run);
  REQUIRE(f.runner.commands.size() == 2);  // apt-get update, the install command
  CHECK(f.runner.commands[1].argv.back() == "cd /var/tmp/railyard-vendor-1.0 && ./bundle-1.0/install.sh --kernel-only");
  CHECK_FALSE(fs::exists(f.tmp / "root/var/tmp/railyard-vendor-1.0"));
  CHECK(fs::exists(f.tmp / ("downloads/" + m.tarball.sha256.substr(0, 16) + "-bundle.tgz")));
  CHECK(read_all(f.tmp / "root/usr/share/railyard/image/drivers.json").find("\"kind\": \"tarball\"") !=
        std::string::npos);

  // The wrong digest: nothing is unpacked, and the error says which bundle and why.
  m.tarball.sha256 = std::string(64, '0');
  f.lr.drivers = {LoadedManifest{m, {}}};
  f.runner.commands.clear();
  Status bad = run_drivers(ctx);
  server.stop();
  serving.join();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("tarball.url") != std::string::npos);
  CHECK(f.runner.commands.size() == 1);
}

TEST_CASE(
    "base: packages a vendor root filesystem lacks are named by dpkg's status, arch and version suffixes ignored") {
  std::string status =
      "Package: udev\nStatus: install ok installed\nVersion: 252\nArchitecture: amd64\n\n"
      "Package: linux-image-amd64\nStatus: deinstall ok config-files\nVersion: 6.1\nArchitecture: amd64\n\n"
      "Package: kmod\nStatus: install ok installed\nVersion: 30\nArchitecture: amd64\n";
  CHECK(missing_packages(status, {"linux-image-amd64", "udev", "kmod:amd64", "iproute2=6.1-1", "iproute2=6.1-1"}) ==
        std::vector<std::string>{"linux-image-amd64", "iproute2=6.1-1"});
  CHECK(missing_packages(status, {"udev"}).empty());
}

namespace {

// A small root filesystem archive: dpkg's status lists `installed`; a setuid file owned by
// 1234:5678, a hard link and a symlink, as a vendor's tarball would carry them.
std::string rootfs_archive(TempDir& tmp, const std::vector<std::string>& installed) {
  std::string status;
  for (const auto& p : installed)
    status += "Package: " + p + "\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n\n";
  tmp.write("rootfs/var/lib/dpkg/status", status);
  tmp.write("rootfs/usr/bin/tool", "#!/bin/sh\n", 04755);
  tmp.write("rootfs/etc/os-release", "ID=debian\n");
  tmp.write("rootfs/usr/share/doc/caf\xc3\xa9/r\xc3\xa9sum\xc3\xa9.txt", "non-ASCII names, as packages ship them\n");
  fs::create_hard_link(tmp / "rootfs/usr/bin/tool", tmp / "rootfs/usr/bin/tool2");
  fs::create_symlink("usr/bin", tmp / "rootfs/bin");
  // pax: names as UTF-8, as vendors' tools and `tar --xattrs` write them.
  std::string cmd = "tar -C " + (tmp / "rootfs") + " --format=pax --numeric-owner --owner=1234 --group=5678 -cJf " +
                    (tmp / "rootfs.tar.xz") + " .";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return read_all(tmp / "rootfs.tar.xz");
}

}  // namespace

TEST_CASE("base: a vendor root filesystem is fetched, verified and unpacked with owners, modes and links") {
  StageFixture f;
  std::string archive = rootfs_archive(f.tmp, {"linux-image-amd64",
                                               "systemd-sysv",
                                               "udev",
                                               "iproute2",
                                               "kmod",
                                               "ca-certificates",
                                               "lldpd",
                                               "slurmd",
                                               "slurm-client",
                                               "munge",
                                               "dbus",
                                               "slurmctld",
                                               "curl",
                                               "rdma-core",
                                               "ibverbs-providers",
                                               "libibverbs1",
                                               "librdmacm1",
                                               "ibverbs-utils",
                                               "perftest",
                                               "infiniband-diags",
                                               "rdmacm-utils"});
  LocalServer server({{"vendor/rootfs.tar.xz", archive}});
  ImageSpec& image = f.lr.recipe.image;
  image.rootfs_url = server.url("vendor/rootfs.tar.xz");
  image.rootfs_sha256 = f.hasher.sha256_hex(archive);
  f.tmp.write("root/stale", "left from an earlier try\n");
  StageContext ctx = f.context();
  Status s = run_base(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(f.runner.commands.empty());  // everything the recipe asks for is there: no apt
  CHECK_FALSE(fs::exists(f.tmp / "root/stale"));
  CHECK(read_all(f.tmp / "root/etc/os-release") == "ID=debian\n");
  CHECK(mode_of(f.tmp / "root/usr/bin/tool") == 04755);
  CHECK(fs::equivalent(f.tmp / "root/usr/bin/tool", f.tmp / "root/usr/bin/tool2"));
  CHECK(fs::read_symlink(f.tmp / "root/bin") == "usr/bin");
  CHECK(fs::exists(f.tmp / "root/usr/share/doc/caf\xc3\xa9/r\xc3\xa9sum\xc3\xa9.txt"));
  if (::geteuid() == 0) {
    struct stat st {};
    REQUIRE(::lstat((f.tmp / "root/usr/bin/tool").c_str(), &st) == 0);
    CHECK(st.st_uid == 1234u);
    CHECK(st.st_gid == 5678u);
  }
  CHECK(fs::exists(f.tmp / ("downloads/" + image.rootfs_sha256.substr(0, 16) + "-rootfs.tar.xz")));

  // A second build takes the download it kept.
  s = run_base(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(server.hits["vendor/rootfs.tar.xz"] == 1);

  // The wrong digest: nothing unpacked, and the error names the recipe key.
  image.rootfs_sha256 = std::string(64, 'a');
  fs::remove_all(f.tmp / "root");
  Status bad = run_base(ctx);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("image.rootfs_url") != std::string::npos);
  CHECK(bad.error().find("sha256 mismatch") != std::string::npos);
  CHECK_FALSE(fs::exists(f.tmp / "root/etc"));
}

TEST_CASE("base: a vendor root filesystem without the kernel gets it from its own apt sources") {
  StageFixture f;
  std::string archive = rootfs_archive(f.tmp, {"systemd-sysv", "udev"});
  LocalServer server({{"rootfs.tar.xz", archive}});
  ImageSpec& image = f.lr.recipe.image;
  image.rootfs_url = server.url("rootfs.tar.xz");
  image.rootfs_sha256 = f.hasher.sha256_hex(archive);
  image.packages = {"udev", "iproute2"};
  image.path_exclude.clear();
  image.path_include.clear();
  f.tmp.write("root/lib/modules/6.1.0-28-amd64/modules.dep", "");
  StageContext ctx = f.context();
  Status s = run_base(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  REQUIRE(f.runner.commands.size() == 3);
  CHECK(f.runner.commands[0].argv ==
        std::vector<std::string>{"sh", "-ec", divert_initramfs_script(), "sh", f.tmp / "root"});
  CHECK(shell_quote(f.runner.commands[1].argv).find((f.tmp / "root") + " apt-get update") != std::string::npos);
  std::string install = shell_quote(f.runner.commands[2].argv);
  CHECK(install.find("install") != std::string::npos);
  CHECK(install.find("linux-image-amd64 iproute2") != std::string::npos);
  CHECK(install.find(" udev") == std::string::npos);
  CHECK_FALSE(fs::exists(f.tmp / (std::string("root/") + kDpkgPathFilterFile)));  // no filters asked for: no file
}

TEST_CASE("base: a vendor root filesystem gets the recipe's dpkg path filters before anything is installed") {
  StageFixture f;
  std::string archive = rootfs_archive(f.tmp, {"systemd-sysv"});
  LocalServer server({{"rootfs.tar.xz", archive}});
  ImageSpec& image = f.lr.recipe.image;
  image.rootfs_url = server.url("rootfs.tar.xz");
  image.rootfs_sha256 = f.hasher.sha256_hex(archive);
  image.packages = {"udev"};
  image.path_exclude = {"/usr/share/doc/*"};
  image.path_include = {"/usr/share/doc/*/copyright"};
  StageContext ctx = f.context();
  Status s = run_base(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(read_all(f.tmp / (std::string("root/") + kDpkgPathFilterFile)) ==
        "# image.path_exclude and image.path_include of recipe " + f.lr.recipe.name +
            " (what the archive already had is kept)\npath-exclude=/usr/share/doc/*\n"
            "path-include=/usr/share/doc/*/copyright\n");
  CHECK(fs::exists(f.tmp / "root/usr/share/doc/caf\xc3\xa9/r\xc3\xa9sum\xc3\xa9.txt"));
  CHECK(shell_quote(f.runner.commands.back().argv).find("install") != std::string::npos);
}

namespace {

// run_base on `tar -C DIR TAR_ARGS` written to NAME and served on 127.0.0.1.
Status base_from_tar(StageFixture& f, const std::string& dir, const std::string& name, const std::string& tar_args) {
  REQUIRE(std::system(("tar -C " + (f.tmp / dir) + " -f " + (f.tmp / name) + " " + tar_args).c_str()) == 0);
  std::string archive = read_all(f.tmp / name);
  LocalServer server(std::map<std::string, std::string>{{name, archive}});
  f.lr.recipe.image.rootfs_url = server.url(name);
  f.lr.recipe.image.rootfs_sha256 = f.hasher.sha256_hex(archive);
  StageContext ctx = f.context();
  return run_base(ctx);
}

}  // namespace

TEST_CASE("base: an archive that is not a Debian root filesystem is refused, saying what is missing") {
  StageFixture f;
  f.tmp.write("notroot/README", "a vendor tool, not a root filesystem\n");
  Status s = base_from_tar(f, "notroot", "tool.tgz", "-cz .");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("tool.tgz is not a Debian or Ubuntu root filesystem (no var/lib/dpkg/status") !=
        std::string::npos);
}

TEST_CASE("base: a root filesystem archive with an entry outside the tree is refused") {
  StageFixture f;
  f.tmp.write("evil/x", "x\n");
  Status s = base_from_tar(f, "evil", "evil.tar", "-c --transform 's,^x,../escaped,' x");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("would land outside") != std::string::npos);
  CHECK_FALSE(fs::exists(f.tmp / "escaped"));
}

namespace {

const std::string kKeys = std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/keys/";
const std::string kVendorA = "E483B6A865572B37D9648F5C77F676C54D6B0C75";
const std::string kVendorB = "60B15173A12812E632EA66BD521A40E804AC1BA1";

// Runs gpg for real (the check under test); anything else captured answers empty.
Outcome<std::string> real_gpg(const Command& c) {
  if (c.argv.empty() || c.argv[0] != "gpg") return std::string();
  TempDir log;
  ProcessRunner real(log / "gpg.log");
  return real.capture(c);
}

DriverManifest key_url_bundle(const std::string& url, const std::string& fingerprint) {
  DriverManifest m;
  m.name = "vendor-repo";
  m.version = "1.0";
  m.kind = DriverKind::apt;
  m.apt.uri = "http://127.0.0.1:9/repo";
  m.apt.suite = "./";
  m.apt.key_url = url;
  m.apt.key_fingerprint = fingerprint;
  m.packages = {"vendor-tools"};
  return m;
}

}  // namespace

TEST_CASE("apt keys: gpg's colon listing gives each primary key's fingerprint, not its subkeys'") {
  std::string text =
      "pub:-:255:22:77F676C54D6B0C75:1795984106:::-:::scESC:::::ed25519:::0:\n"
      "fpr:::::::::E483B6A865572B37D9648F5C77F676C54D6B0C75:\n"
      "uid:-::::1795984106::0D5E::railyard test vendor A <vendor-a@example.invalid>::::::::::0:\n"
      "sub:-:255:18:F7C145A3AD50DA39:1795984108::::::e:::::cv25519::\n"
      "fpr:::::::::4A4AB4F54F37D28ACAE61820F7C145A3AD50DA39:\n"
      "pub:r:255:22:0A1B6962E128F47C:1795984108:1900000000::-:::sc:::::ed25519:::0:\n"
      "fpr:::::::::2eb1ad9ba8163c4659bfb7000a1b6962e128f47c:\n";
  auto keys = parse_gpg_colons(text);
  REQUIRE(keys.size() == 2);
  CHECK(keys[0].fingerprint == kVendorA);
  CHECK(keys[0].uids == std::vector<std::string>{"railyard test vendor A <vendor-a@example.invalid>"});
  CHECK_FALSE(keys[0].revoked);
  CHECK(keys[0].expires == 0);
  CHECK(keys[1].fingerprint == "2EB1AD9BA8163C4659BFB7000A1B6962E128F47C");
  CHECK(keys[1].revoked);
  CHECK(keys[1].expires == 1900000000);

  CHECK(check_pinned_key({keys[0]}, "e483 b6a8 6557 2b37 d964  8f5c 77f6 76c5 4d6b 0c75", 1800000000).ok());
  CHECK(check_pinned_key({keys[0]}, "", 1800000000).ok());
  CHECK(check_pinned_key({keys[0]}, kVendorB, 1800000000).error().find("not the pinned " + kVendorB) !=
        std::string::npos);
  CHECK(check_pinned_key(keys, kVendorA, 1800000000).error().find("holds 2 keys") != std::string::npos);
  CHECK(check_pinned_key({keys[1]}, "", 1800000000).error().find("is revoked") != std::string::npos);
  PublicKey old = keys[0];
  old.expires = 1577836800;
  CHECK(check_pinned_key({old}, kVendorA, 1800000000).error().find("expired") != std::string::npos);
}

TEST_CASE(
    "drivers: a repository key fetched from key_url is accepted only as the pinned key, then kept by fingerprint") {
  StageFixture f;
  f.runner.on_capture = real_gpg;
  LocalServer server({{"a.asc", read_all(kKeys + "vendor-a.asc")},
                      {"b.gpg", read_all(kKeys + "vendor-b.gpg")},
                      {"two.asc", read_all(kKeys + "two-keys.asc")},
                      {"expired.asc", read_all(kKeys + "expired.asc")},
                      {"revoked.asc", read_all(kKeys + "revoked.asc")},
                      {"junk.asc", "<html>not a key</html>\n"}});
  f.tmp.write("root/lib/modules/6.1.0-28-amd64/modules.dep", "");
  StageContext ctx = f.context();
  auto build_with = [&](const std::string& name, const std::string& fingerprint) {
    f.lr.drivers = {LoadedManifest{key_url_bundle(server.url(name), fingerprint), {}}};
    f.runner.commands.clear();
    return run_drivers(ctx);
  };

  Status s = build_with("a.asc", kVendorA);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(read_all(f.tmp / "root/usr/share/keyrings/railyard-vendor-repo.asc") == read_all(kKeys + "vendor-a.asc"));
  CHECK(read_all(f.tmp / "root/etc/apt/sources.list.d/railyard-vendor-repo.sources")
            .find("Signed-By: /usr/share/keyrings/railyard-vendor-repo.asc") != std::string::npos);
  CHECK(fs::exists(f.tmp / ("downloads/keys/" + kVendorA + ".key")));
  // Pinned: the next build takes the kept key without fetching it.
  REQUIRE(build_with("a.asc", kVendorA).ok());
  CHECK(server.hits["a.asc"] == 1);

  // A binary key, pinned with spaces and lower case as vendors print them.
  s = build_with("b.gpg", "60b1 5173 a128 12e6 32ea  66bd 521a 40e8 04ac 1ba1");
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(fs::exists(f.tmp / "root/usr/share/keyrings/railyard-vendor-repo.gpg"));

  struct Refused {
    std::string file, fingerprint, why;
  };
  for (const Refused& r :
       {Refused{"a.asc", kVendorB, "not the pinned " + kVendorB}, Refused{"two.asc", kVendorA, "holds 2 keys"},
        Refused{"expired.asc", "8AD7D36C7870BF82659C87E3F5EF583ABDD1E7D7", "expired"},
        Refused{"revoked.asc", "2EB1AD9BA8163C4659BFB7000A1B6962E128F47C", "is revoked"},
        Refused{"junk.asc", kVendorA, "OpenPGP"}}) {
    CAPTURE(r.file);
    fs::remove_all(f.tmp / "downloads/keys");
    Status bad = build_with(r.file, r.fingerprint);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().find("apt.key_url") != std::string::npos);
    CHECK(bad.error().find(r.why) != std::string::npos);
    CHECK(fs::is_empty(f.tmp / "downloads/keys"));  // nothing half-accepted is kept
    CHECK(f.runner.commands.size() == 1);           // gpg only: no apt-get update with a bad key
  }
}

TEST_CASE("agent: every join unit the image ships gets the gate's drop-in, whoever ships it") {
  StageFixture f;
  f.lr.recipe.join.units = {"slurmd.service", "railyard-ready.service", "getty@tty1.service"};
  f.tmp.write("root/usr/lib/systemd/system/slurmd.service", "[Service]\nExecStart=/usr/sbin/slurmd\n");
  f.tmp.write("root/etc/systemd/system/railyard-ready.service", "[Service]\nType=oneshot\n");  // from an overlay
  f.tmp.write("root/usr/lib/systemd/system/getty@.service", "[Service]\n");                    // an instance's template
  StageContext ctx = f.context();
  Status s = gate_join_units(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (const auto& u : f.lr.recipe.join.units) {
    CAPTURE(u);
    fs::path dropin = f.tmp / ("root" + join_gate_path(u));
    CHECK(read_all(dropin) == join_gate_text(u));
    CHECK((fs::status(dropin).permissions() & fs::perms::all) == fs::perms(0644));
  }
  CHECK(f.runner.commands.empty());
}

TEST_CASE("agent: a join unit the image lacks, or masks, fails the build at the recipe's line") {
  StageFixture f;
  f.lr.recipe.join.units = {"railyard-ready.service", "slurmd.service"};
  f.lr.positions["join.units[1]"] = SourcePos{"recipes/x.toml", 12, 21};
  f.tmp.write("root/etc/systemd/system/railyard-ready.service", "[Service]\n");
  StageContext ctx = f.context();
  Status s = gate_join_units(ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error() ==
        "recipes/x.toml:12:21: join.units: slurmd.service is in no package, driver bundle or overlay of the "
        "image (looked for /etc/systemd/system/slurmd.service, /usr/lib/systemd/system/slurmd.service, "
        "/lib/systemd/system/slurmd.service); add the package that ships it to image.packages, or ship it "
        "in an overlay");

  fs::create_directories(f.tmp / "root/etc/systemd/system");
  fs::create_symlink("/dev/null", f.tmp / "root/etc/systemd/system/slurmd.service");
  s = gate_join_units(ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error() ==
        "recipes/x.toml:12:21: join.units: slurmd.service is masked in the image "
        "(/etc/systemd/system/slurmd.service is a link to /dev/null); the agent could never start it");
}

TEST_CASE("agent: a Slurm node gets configless slurmd before the gate, and munge its key at boot") {
  StageFixture f;
  f.lr.recipe.join.units = {"slurmd.service"};
  f.lr.recipe.slurm.controller = "10.0.0.1:7000";
  f.tmp.write("root/lib/systemd/system/slurmd.service", "[Unit]\nConditionPathExists=/etc/slurm/slurm.conf\n");
  f.tmp.write("root/usr/bin/sinfo", "");
  f.tmp.write("root/usr/bin/scontrol", "");
  f.tmp.write("root/usr/sbin/munged", "");
  f.tmp.write("root/usr/bin/dbus-daemon", "");
  StageContext ctx = f.context();
  REQUIRE(gate_join_units(ctx).ok());
  Status s = slurm_node_files(ctx);
  REQUIRE_MESSAGE(s.ok(), s.error());
  std::string dropin = read_all(f.tmp / "root/etc/systemd/system/slurmd.service.d/50-railyard-slurm.conf");
  CHECK(dropin.find("SLURMD_OPTIONS=--conf-server 10.0.0.1:7000") != std::string::npos);
  CHECK(fs::exists(f.tmp / "root/etc/systemd/system/slurmd.service.d/99-railyard-gate.conf"));
  CHECK(
      read_all(f.tmp / "root/usr/lib/tmpfiles.d/railyard-munge.conf").find("z /etc/munge/munge.key 0400 munge munge") !=
      std::string::npos);
}

TEST_CASE("agent: a Slurm node's image without scontrol, munged or a system bus fails the build at the recipe's line") {
  StageFixture f;
  f.lr.recipe.slurm.controller = "ctl";
  f.lr.positions["join.slurm.controller"] = SourcePos{"recipes/x.toml", 30, 14};
  f.tmp.write("root/usr/bin/sinfo", "");
  StageContext ctx = f.context();
  Status s = slurm_node_files(ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error() ==
        "recipes/x.toml:30:14: join.slurm: the image has no /usr/bin/scontrol; add slurm-client to image.packages");
  CHECK_FALSE(fs::exists(f.tmp / "root/etc/systemd/system/slurmd.service.d/50-railyard-slurm.conf"));
  // scontrol and munged, but no system bus for slurmd's cgroup/v2 plugin.
  f.tmp.write("root/usr/bin/scontrol", "");
  f.tmp.write("root/usr/sbin/munged", "");
  Status no_bus = slurm_node_files(ctx);
  REQUIRE_FALSE(no_bus.ok());
  CHECK(no_bus.error().find("recipes/x.toml:30:14: join.slurm: the image has no D-Bus system bus") == 0);
  CHECK(no_bus.error().find("add dbus to image.packages") != std::string::npos);

  StageFixture none;  // not a Slurm node: nothing written, nothing asked of the image
  none.lr.recipe.slurm.controller.clear();
  StageContext c2 = none.context();
  CHECK(slurm_node_files(c2).ok());
  CHECK_FALSE(fs::exists(none.tmp / "root/usr/lib/tmpfiles.d/railyard-munge.conf"));
}
