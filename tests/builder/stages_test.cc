// The build stages' pure parts (command lines, apt files, DKMS status, module dependencies,
// dpkg status, boot.ipxe) and the stages that only touch files (overlays, hygiene), run on
// small trees with a runner that records commands instead of running them.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <thread>

#include <httplib.h>

#include "builder/temp_dir.h"
#include "io/disk_source.h"
#include "recipe_loader.h"
#include "stages/base.h"
#include "stages/drivers.h"
#include "stages/manifest.h"
#include "stages/stage.h"
#include "stages/trim.h"

using namespace railyard;
using railyard::test::read_all;
using railyard::test::TempDir;
namespace fs = std::filesystem;

namespace {

class RecordingRunner : public CommandRunner {
 public:
  std::vector<Command> commands;
  std::function<void(const Command&)> on_run;
  Status run(const Command& c) override {
    commands.push_back(c);
    if (on_run) on_run(c);
    return success();
  }
  Outcome<std::string> capture(const Command& c) override {
    commands.push_back(c);
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
  Command c = bootstrap_command(debian_image(), "/w/root", {"/etc/apt/sources.list", "/etc/apt/sources.list.d/x.sources"}, 42);
  CHECK(shell_quote(c.argv) ==
        "mmdebstrap --mode=root --variant=minbase --arch=amd64 --components=main "
        "--include=linux-image-amd64,systemd-sysv,udev '--aptopt=Acquire::Retries \"3\"' "
        "'--aptopt=APT::Install-Recommends \"false\"' --skip=cleanup/apt/lists bookworm /w/root /etc/apt/sources.list "
        "/etc/apt/sources.list.d/x.sources");
  CHECK(c.env.at("SOURCE_DATE_EPOCH") == "42");
}

TEST_CASE("base: Ubuntu suites bootstrap with Ubuntu's keyring and the recipe's mirror and components") {
  ImageSpec i = debian_image();
  i.distro = Distro::ubuntu;
  i.suite = "noble";
  i.mirror = "http://archive.ubuntu.com/ubuntu";
  i.components = {"main", "restricted", "universe"};
  i.kernel = "linux-image-generic";
  Command c = bootstrap_command(i, "/w/root", {"/etc/apt/sources.list"}, 0);
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
  CHECK(apt_source_deb822(m, "/k.gpg").find("Suites: noble\nComponents: main\nSigned-By: /k.gpg\n") != std::string::npos);
  CHECK(apt_pin(m) ==
        "# doca-ofed-2.10.0 2.10.0: prefer its packages over the distribution's\n"
        "Package: *\nPin: origin linux.mellanox.com\nPin-Priority: 1001\n");
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
      "kernel/drivers/usb/gadget/function/usb_f_midi.ko: kernel/drivers/usb/gadget/libcomposite.ko kernel/sound/core/snd.ko\n"
      "kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko\n";
  CHECK(stranded_modules(dep, {"sound"}) ==
        std::vector<std::string>{"kernel/drivers/usb/gadget/function/usb_f_midi.ko"});
  CHECK(stranded_modules(dep, {"sound", "drivers/media"}) ==
        std::vector<std::string>{"kernel/drivers/hid/hid-picolcd.ko", "kernel/drivers/usb/gadget/function/usb_f_midi.ko"});
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
    auto loaded = load_recipe(disk, std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml", RecipeOptions{}, diags);
    REQUIRE(loaded);
    lr = *loaded;
  }
  StageContext context() {
    InputLocations where{tmp / "overlays", "", tmp / "apt"};
    return StageContext{lr,    plan,    tmp / "root", tmp / "image", tmp / "downloads",
                        where, digests, runner,       hasher,        [](const std::string&) {}};
  }
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
  f.tmp.write("root/var/lib/apt/lists/deb.debian.org_dists_bookworm_InRelease", "x");
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
  CHECK(fs::is_empty(f.tmp / "root/var/lib/apt/lists"));
  CHECK(fs::is_directory(f.tmp / "root/var/log/apt"));  // packages expect their log directories
  CHECK_FALSE(fs::exists(f.tmp / "root/var/log/dpkg.log"));
  CHECK(f.runner.commands.empty());
}

TEST_CASE("trim drops the recipe's module directories and what needs them, reruns depmod in the image, records it") {
  StageFixture f;
  f.lr.recipe.image.drop_modules = {"sound", "drivers/media", "sound"};
  std::string mods = "root/lib/modules/6.1.0-28-amd64/";
  f.tmp.write(mods + "modules.dep",
              "kernel/sound/snd.ko:\nkernel/drivers/net/virtio_net.ko:\nkernel/drivers/hid/hid-prodikeys.ko: kernel/sound/snd.ko\n");
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
  CHECK(std::vector<std::string>(argv.end() - 3, argv.end()) == std::vector<std::string>{"depmod", "-a", "6.1.0-28-amd64"});
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
  CHECK(read_all(f.tmp / "root/usr/share/railyard/image/drivers.json").find("\"kind\": \"tarball\"") != std::string::npos);

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
