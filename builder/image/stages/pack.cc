// The pack stage: the kernel, the root filesystem as zstd newc cpio (split into parts when
// large), boot.ipxe and manifest.json, every artifact hashed.
// Its cache key (what defines the pack stage) is computed purely in core/build_plan.cc (plan_build).
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "image/cpio_writer.h"
#include "image/image_manifest.h"
#include "build_tools.h"
#include "image_files.h"
#include "manifest.h"
#include "stage.h"
#include "text.h"
#include "version.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// File data per initramfs part. Each part stays far below the 4 GiB that 32-bit size fields
// in firmware, TFTP servers and boot loaders can describe.
constexpr std::uint64_t kPartBytes = 2ULL << 30;

}  // namespace

Status run_pack(StageContext& ctx) {
  const Recipe& r = ctx.recipe.recipe;
  auto kver = image_kernel_version(ctx.root);
  if (!kver.ok()) return Status::fail(kver.error());
  std::error_code ec;
  fs::create_directories(ctx.image_dir, ec);
  if (ec) return Status::fail(ctx.image_dir + ": " + ec.message());
  fs::path vmlinuz = fs::path(ctx.root) / "boot" / ("vmlinuz-" + *kver);
  fs::copy_file(vmlinuz, fs::path(ctx.image_dir) / "vmlinuz", fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::fail(vmlinuz.string() + ": " + ec.message());

  CpioOptions o;
  o.source_date_epoch = ctx.plan.settings.source_date_epoch;
  o.zstd_level = ctx.plan.settings.zstd_level;
  o.device_nodes = {{"dev/console", false, 0600, 5, 1}};
  o.symlinks = {{"init", "/sbin/init"}};  // the kernel runs /init from an initramfs
  o.exclude_prefixes = {"boot/"};         // served beside the image; Debian's own initrd is unused
  o.part_bytes = kPartBytes;
  o.keep_owners = true;  // the system users' files stay theirs (munged refuses a key directory it does not own)
  ctx.step("cpio newc + zstd -" + std::to_string(o.zstd_level));
  auto cpio = write_cpio_zstd(ctx.root, ctx.image_dir + "/rootfs.cpio.zst", o);
  if (!cpio.ok()) return Status::fail(cpio.error());
  std::vector<std::string> initrds;
  for (const auto& f : cpio->files) initrds.push_back(fs::path(f).filename().string());
  ctx.step(std::to_string(cpio->entries) + " entries, " + std::to_string(cpio->content_bytes >> 20) + " MiB in " +
           std::to_string(initrds.size()) + " archive(s)");

  if (auto s = write_file_atomically(ctx.image_dir + "/boot.ipxe", boot_ipxe(r.name, *kver, r.image.cmdline, initrds));
      !s.ok())
    return s;

  auto status = read_whole_file(ctx.root + "/var/lib/dpkg/status");
  if (!status.ok()) return Status::fail(status.error());
  auto packages = installed_packages(*status);

  ImageManifest m;
  m.railyard_version = kVersion;
  m.recipe_name = r.name;
  m.recipe_sha256 = ctx.hasher.sha256_hex(render_recipe_toml(r));
  m.source_date_epoch = ctx.plan.settings.source_date_epoch;
  nlohmann::ordered_json rendered = nlohmann::ordered_json::parse(render_recipe_json(r));
  m.distro = rendered["image"]["distro"];
  m.suite = r.image.suite;
  m.arch = rendered["image"]["arch"];
  m.kernel_version = *kver;
  m.kernel_package = "linux-image-" + *kver;
  for (const auto& p : packages)
    if (p.name == m.kernel_package) m.kernel_package_version = p.version;
  m.cmdline = r.image.cmdline;
  m.boot_kernel = "vmlinuz";
  m.boot_initrds = initrds;
  for (const auto& s : ctx.plan.stages) m.stages.push_back({to_string(s.stage), s.key});
  m.inputs.push_back({"recipe", r.name, m.recipe_sha256});
  for (const auto& lm : ctx.recipe.drivers) {
    auto text = read_whole_file(lm.manifest.path);
    m.inputs.push_back({"driver-manifest", lm.manifest.name, text.ok() ? ctx.hasher.sha256_hex(*text) : "missing"});
  }
  for (const auto& [name, digest] : ctx.digests.overlays) m.inputs.push_back({"overlay", name, digest});
  if (!ctx.digests.host_apt_sources.empty()) m.inputs.push_back({"apt-sources", "host", ctx.digests.host_apt_sources});
  m.inputs.push_back({"agent", fs::path(ctx.where.agent).filename().string(), ctx.digests.agent});
  // The drivers and trim stages' records of their parts.
  const std::string records = ctx.root + "/" + kImageRecordDir + "/";
  if (auto text = read_whole_file(records + "drivers.json"); text.ok()) {
    auto drivers = parse_drivers_record(*text, records + "drivers.json");
    if (!drivers.ok()) return Status::fail(drivers.error());
    m.drivers = *drivers;
  }
  if (auto text = read_whole_file(records + kBuildToolsRecord); text.ok()) {
    auto tools = parse_build_tools_record(*text, records + kBuildToolsRecord);
    if (!tools.ok()) return Status::fail(tools.error());
    m.build_tools_removed = tools->removed;
    m.build_tools_kept = tools->kept;
    m.build_tools_why_kept = tools->why_kept;
    m.build_tools_sources_removed = tools->sources_removed;
  }
  if (auto text = read_whole_file(records + "trim.json"); text.ok())
    if (auto t = parse_trim_record(*text, records + "trim.json", m); !t.ok()) return Status::fail(t.error());
  m.packages = packages;
  std::vector<std::string> names = {"vmlinuz"};
  names.insert(names.end(), initrds.begin(), initrds.end());
  names.push_back("boot.ipxe");
  for (const auto& n : names) {
    std::string path = ctx.image_dir + "/" + n;
    // The archives were hashed as they were written; the rest is small.
    auto written = std::find(initrds.begin(), initrds.end(), n);
    auto digest = written != initrds.end()
                      ? Outcome<std::string>(cpio->sha256[static_cast<std::size_t>(written - initrds.begin())])
                      : ctx.hasher.sha256_file(path);
    if (!digest.ok()) return Status::fail(digest.error());
    m.artifacts.push_back({n, *digest, fs::file_size(path, ec)});
  }
  return write_file_atomically(ctx.image_dir + "/" + kManifestFile, render_image_manifest(m));
}

}  // namespace railyard
