// Small image directories for the audit, pxe and diff tests: a fake kernel, root filesystem
// archives (zstd newc cpio, one or several parts) and a manifest.json that lists them with
// their real digests, as `railyard build` lays them out.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <string>
#include <vector>

#include "image/image_manifest.h"
#include "builder/temp_dir.h"
#include "image/cpio_writer.h"
#include "image/openssl_hasher.h"
#include "text.h"

namespace railyard::test {

// One archive entry, for archives the cpio writer would not make (other owners, odd modes).
struct ArchiveEntry {
  ArchiveEntry(std::string p, std::string c = "", unsigned m = 0100644, long u = 0, long g = 0, std::string l = "")
      : path(std::move(p)), content(std::move(c)), mode(m), uid(u), gid(g), link(std::move(l)) {}
  std::string path;  // as stored: "etc/hostname"
  std::string content;
  unsigned mode;  // with the type bits: 0040755 directory, 0120777 symlink
  long uid, gid;
  std::string link;  // symlink target
};

inline void write_archive(const std::string& out, const std::vector<ArchiveEntry>& entries) {
  archive* a = archive_write_new();
  REQUIRE(archive_write_set_format_cpio_newc(a) == ARCHIVE_OK);
  REQUIRE(archive_write_add_filter_zstd(a) == ARCHIVE_OK);
  REQUIRE(archive_write_open_filename(a, out.c_str()) == ARCHIVE_OK);
  for (const auto& e : entries) {
    archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.path.c_str());
    archive_entry_set_mode(ae, e.mode);
    archive_entry_set_uid(ae, e.uid);
    archive_entry_set_gid(ae, e.gid);
    if (!e.link.empty()) archive_entry_set_symlink(ae, e.link.c_str());
    archive_entry_set_size(ae, static_cast<la_int64_t>(e.content.size()));
    REQUIRE_MESSAGE(archive_write_header(a, ae) == ARCHIVE_OK, e.path << ": " << std::string(archive_error_string(a)));
    if (!e.content.empty())
      REQUIRE(archive_write_data(a, e.content.data(), e.content.size()) == static_cast<la_ssize_t>(e.content.size()));
    archive_entry_free(ae);
  }
  REQUIRE(archive_write_close(a) == ARCHIVE_OK);
  archive_write_free(a);
}

// A root filesystem as the build leaves it: clean by the hygiene rules.
inline std::vector<ArchiveEntry> clean_rootfs() {
  return {
      {"etc", "", 0040755},
      {"etc/machine-id", "", 0100444},
      {"etc/passwd", "root:x:0:0:root:/root:/bin/bash\n_rdma:x:100:65534::/nonexistent:/usr/sbin/nologin\n", 0100644},
      {"etc/group", "root:x:0:\nnogroup:x:65534:\n", 0100644},
      {"etc/railyard", "", 0040755},
      {"etc/ssh", "", 0040755},
      {"etc/ssh/sshd_config", "PermitRootLogin no\n", 0100644},
      {"init", "", 0120777, 0, 0, "lib/systemd/systemd"},
      {"tmp", "", 0041777},
      {"var", "", 0040755},
      {"var/lib", "", 0040755},
      {"var/lib/apt", "", 0040755},
      {"var/lib/apt/lists", "", 0040755},
      {"var/lib/rdma", "", 0040750, 100, 65534},
      {"var/log", "", 0040755},
      {"var/log/journal", "", 0042755},
  };
}

struct TestImageOptions {
  std::string recipe_name = "qemu-virt";
  std::string recipe_sha256 = std::string(64, 'a');
  std::vector<std::vector<ArchiveEntry>> parts{clean_rootfs()};  // one archive per part
  std::vector<std::string> cmdline{"console=ttyS0", "panic=-1"};
  std::vector<ManifestDriver> extra_drivers;  // after debian12-inbox
};

// Writes DIR = tmp/name: vmlinuz, rootfs.cpio.zst (or rootfs-00…, one per part), boot.ipxe
// and manifest.json. Returns the manifest written.
inline ImageManifest make_test_image(const TempDir& tmp, const std::string& name, const TestImageOptions& opt = {}) {
  std::string dir = tmp / name;
  std::filesystem::create_directories(dir);
  OpenSslHasher hasher;
  ImageManifest m;
  m.railyard_version = "0.1.0";
  m.recipe_name = opt.recipe_name;
  m.recipe_sha256 = opt.recipe_sha256;
  m.distro = "debian";
  m.suite = "bookworm";
  m.arch = "amd64";
  m.kernel_version = "6.1.0-28-amd64";
  m.kernel_package = "linux-image-6.1.0-28-amd64";
  m.kernel_package_version = "6.1.119-1";
  m.cmdline = opt.cmdline;
  m.boot_kernel = "vmlinuz";
  m.stages = {{"base", std::string(64, '1')}, {"pack", std::string(64, '7')}};
  m.inputs = {{"recipe", opt.recipe_name, opt.recipe_sha256}};
  m.drivers = {{"debian12-inbox", "44.0-2", "distro", {"rdma-core"}, {"mlx5_ib"}, {}, {}}};
  m.drivers.insert(m.drivers.end(), opt.extra_drivers.begin(), opt.extra_drivers.end());
  m.packages = {{"bash", "5.2.15-2+b7", "amd64"}, {"rdma-core", "44.0-2", "amd64"}};
  m.trim_dropped = {"sound"};
  m.trim_files = 12;
  m.trim_bytes = 3456;
  tmp.write(name + "/vmlinuz", "MZ fake kernel for " + name + "\n");
  for (std::size_t i = 0; i < opt.parts.size(); ++i) {
    std::string part = opt.parts.size() == 1
                           ? "rootfs.cpio.zst"
                           : "rootfs-" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".cpio.zst";
    write_archive(dir + "/" + part, opt.parts[i]);
    m.boot_initrds.push_back(part);
  }
  std::string ipxe = "#!ipxe\nkernel vmlinuz " + join(m.cmdline, " ") + "\n";
  for (const auto& p : m.boot_initrds) ipxe += "initrd " + p + "\n";
  tmp.write(name + "/boot.ipxe", ipxe + "boot\n");
  std::vector<std::string> paths{"vmlinuz"};
  paths.insert(paths.end(), m.boot_initrds.begin(), m.boot_initrds.end());
  paths.push_back("boot.ipxe");
  for (const auto& p : paths) {
    auto sha = hasher.sha256_file(dir + "/" + p);
    REQUIRE(sha.ok());
    m.artifacts.push_back({p, *sha, std::filesystem::file_size(dir + "/" + p)});
  }
  tmp.write(name + "/manifest.json", render_image_manifest(m));
  return m;
}

}  // namespace railyard::test
