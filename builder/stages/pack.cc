// The pack stage: the kernel, the root filesystem as zstd newc cpio (split into parts when
// large), boot.ipxe and manifest.json, every artifact hashed.
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cpio_writer.h"
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

nlohmann::ordered_json read_record(const std::string& root, const std::string& name, nlohmann::ordered_json fallback) {
  auto text = read_whole_file(root + "/" + kImageRecordDir + "/" + name);
  if (!text.ok()) return fallback;
  auto j = nlohmann::ordered_json::parse(*text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

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
  ctx.step("cpio newc + zstd -" + std::to_string(o.zstd_level));
  auto cpio = write_cpio_zstd(ctx.root, ctx.image_dir + "/rootfs.cpio.zst", o);
  if (!cpio.ok()) return Status::fail(cpio.error());
  std::vector<std::string> initrds;
  for (const auto& f : cpio->files) initrds.push_back(fs::path(f).filename().string());
  ctx.step(std::to_string(cpio->entries) + " entries, " + std::to_string(cpio->content_bytes >> 20) + " MiB in " +
           std::to_string(initrds.size()) + " archive(s)");

  if (auto s = write_file_atomic(ctx.image_dir + "/boot.ipxe", boot_ipxe(r.name, *kver, r.image.cmdline, initrds)); !s.ok())
    return s;

  auto status = read_whole_file(ctx.root + "/var/lib/dpkg/status");
  if (!status.ok()) return Status::fail(status.error());
  auto packages = installed_packages(*status);

  nlohmann::ordered_json m;
  m["schema"] = kManifestSchema;
  m["railyard_version"] = kVersion;
  m["recipe"] = {{"name", r.name}, {"sha256", ctx.hasher.sha256_hex(render_recipe_toml(r))}};
  m["source_date_epoch"] = ctx.plan.settings.source_date_epoch;
  nlohmann::ordered_json rendered = nlohmann::ordered_json::parse(render_recipe_json(r));
  m["image"] = {{"distro", rendered["image"]["distro"]}, {"suite", r.image.suite}, {"arch", rendered["image"]["arch"]}};
  std::string kernel_package = "linux-image-" + *kver, kernel_package_version;
  for (const auto& p : packages)
    if (p.name == kernel_package) kernel_package_version = p.version;
  m["kernel"] = {{"version", *kver},
                 {"package", kernel_package},
                 {"package_version", kernel_package_version},
                 {"cmdline", r.image.cmdline}};
  m["boot"] = {{"format", "initramfs"}, {"kernel", "vmlinuz"}, {"initrds", initrds}};
  m["stages"] = nlohmann::ordered_json::array();
  for (const auto& s : ctx.plan.stages) m["stages"].push_back({{"name", to_string(s.stage)}, {"key", s.key}});
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  inputs.push_back({{"kind", "recipe"}, {"name", r.name}, {"sha256", m["recipe"]["sha256"]}});
  for (const auto& lm : ctx.recipe.drivers) {
    auto text = read_whole_file(lm.manifest.path);
    inputs.push_back({{"kind", "driver-manifest"},
                      {"name", lm.manifest.name},
                      {"sha256", text.ok() ? ctx.hasher.sha256_hex(*text) : "missing"}});
  }
  for (const auto& [name, digest] : ctx.digests.overlays)
    inputs.push_back({{"kind", "overlay"}, {"name", name}, {"sha256", digest}});
  if (!ctx.digests.host_apt_sources.empty())
    inputs.push_back({{"kind", "apt-sources"}, {"name", "host"}, {"sha256", ctx.digests.host_apt_sources}});
  inputs.push_back({{"kind", "agent"}, {"name", fs::path(ctx.where.agent).filename().string()}, {"sha256", ctx.digests.agent}});
  m["inputs"] = inputs;
  m["drivers"] = read_record(ctx.root, "drivers.json", nlohmann::ordered_json::array());
  m["packages"] = nlohmann::ordered_json::array();
  for (const auto& p : packages) m["packages"].push_back({{"name", p.name}, {"version", p.version}, {"arch", p.arch}});
  m["trim"] = read_record(ctx.root, "trim.json", nlohmann::ordered_json::object());
  m["artifacts"] = nlohmann::ordered_json::array();
  std::vector<std::string> names = {"vmlinuz"};
  names.insert(names.end(), initrds.begin(), initrds.end());
  names.push_back("boot.ipxe");
  for (const auto& n : names) {
    std::string path = ctx.image_dir + "/" + n;
    // The archives were hashed as they were written; the rest is small.
    auto written = std::find(initrds.begin(), initrds.end(), n);
    auto digest = written != initrds.end() ? Outcome<std::string>(cpio->sha256[static_cast<std::size_t>(written - initrds.begin())])
                                           : ctx.hasher.sha256_file(path);
    if (!digest.ok()) return Status::fail(digest.error());
    m["artifacts"].push_back({{"path", n}, {"sha256", *digest}, {"size", fs::file_size(path, ec)}});
  }
  return write_file_atomic(ctx.image_dir + "/manifest.json", m.dump(2) + "\n");
}

}  // namespace railyard
