// Its cache key (what defines the base stage) is computed purely in core/build_plan.cc (plan_build).
#include "base.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>

#include "apt.h"
#include "io/atomic_file.h"
#include "downloads.h"
#include "image_files.h"
#include "manifest.h"
#include "stage.h"
#include "text.h"
#include "unpack.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUbuntuKeyring = "/usr/share/keyrings/ubuntu-archive-keyring.gpg";

}  // namespace

std::vector<std::string> dpkg_path_filters(const ImageSpec& image) {
  std::vector<std::string> out;
  for (const auto& p : image.path_exclude) out.push_back("path-exclude=" + p);
  for (const auto& p : image.path_include) out.push_back("path-include=" + p);
  return out;
}

Command bootstrap_command(const ImageSpec& image, const std::string& root, const std::vector<std::string>& sources,
                          long long source_date_epoch) {
  std::vector<std::string> include = image.packages;
  include.insert(include.begin(), image.kernel);
  Command c;
  c.argv = {"mmdebstrap", "--mode=root", "--variant=minbase",
            std::string("--arch=") + (image.arch == Arch::amd64 ? "amd64" : "arm64"),
            "--components=" + join(image.components, ","), "--include=" + join(include, ","),
            "--aptopt=Acquire::Retries \"3\"",
            // Recommends would make the image depend on apt's mood; recipes list what they need.
            "--aptopt=APT::Install-Recommends \"false\"",
            // The package index stays for the drivers stage (it installs from the same
            // snapshot of the mirror the base came from); hygiene removes it from the image.
            "--skip=cleanup/apt/lists",
            // Before the kernel is installed: its initramfs would never be booted.
            "--essential-hook=" + divert_initramfs_script()};
  // mmdebstrap keeps them in the image (/etc/dpkg/dpkg.cfg.d/99mmdebstrap): the drivers
  // stage's installs, and any later one on the node, leave out the same paths.
  for (const auto& filter : dpkg_path_filters(image)) c.argv.push_back("--dpkgopt=" + filter);
  if (image.distro == Distro::ubuntu) c.argv.push_back(std::string("--keyring=") + kUbuntuKeyring);
  c.argv.push_back(image.suite);
  c.argv.push_back(root);
  if (image.mirror == "host") c.argv.insert(c.argv.end(), sources.begin(), sources.end());
  else c.argv.push_back(image.mirror);
  c.env = {{"SOURCE_DATE_EPOCH", std::to_string(source_date_epoch)}, {"LC_ALL", "C.UTF-8"}};
  c.what = "bootstrap " + image.suite;
  return c;
}

std::vector<std::string> missing_packages(const std::string& dpkg_status, const std::vector<std::string>& wanted) {
  std::vector<std::string> have;
  for (const auto& p : installed_packages(dpkg_status)) have.push_back(p.name);
  std::vector<std::string> out;
  for (const auto& w : wanted) {
    std::string name = w.substr(0, w.find_first_of(":=/"));  // "pkg:amd64", "pkg=1.2", "pkg/suite"
    if (!std::binary_search(have.begin(), have.end(), name) && std::find(out.begin(), out.end(), w) == out.end())
      out.push_back(w);
  }
  return out;
}

namespace {

// A vendor root filesystem: fetched once (kept by its sha256), unpacked as root with owners
// and capabilities, then completed with the recipe's kernel and packages from its own apt
// sources when it lacks them.
Status base_from_archive(StageContext& ctx, const ImageSpec& image) {
  auto got = fetch_pinned_archive(ctx, image.rootfs_url, image.rootfs_sha256, "rootfs");
  if (!got.ok()) return Status::fail(ctx.recipe.path + ": image.rootfs_url: " + got.error());
  const std::string& file = got->name;
  std::error_code ec;
  fs::remove_all(ctx.root, ec);
  fs::create_directories(ctx.root, ec);
  if (ec) return Status::fail(ctx.root + ": " + ec.message());
  ctx.step("unpack " + file + " (" + std::to_string(got->bytes >> 20) + " MiB)");
  auto unpacked = unpack_archive(got->path, ctx.root, UnpackOptions{.root_filesystem = true});
  if (!unpacked.ok()) return Status::fail(ctx.recipe.path + ": image.rootfs_url: " + unpacked.error());
  auto status = read_whole_file(ctx.root + "/var/lib/dpkg/status");
  if (!status.ok())
    return Status::fail(ctx.recipe.path + ": image.rootfs_url: " + file +
                        " is not a Debian or Ubuntu root filesystem (no var/lib/dpkg/status at its top level; " +
                        std::to_string(unpacked->entries) + " entries unpacked)");
  if (auto filters = dpkg_path_filters(image); !filters.empty()) {
    std::string text = "# image.path_exclude and image.path_include of recipe " + ctx.recipe.recipe.name +
                       " (what the archive already had is kept)\n" + join(filters, "\n") + "\n";
    std::error_code ec;
    fs::create_directories((fs::path(ctx.root) / kDpkgPathFilterFile).parent_path(), ec);
    if (auto s = write_file_atomically(ctx.root + "/" + kDpkgPathFilterFile, text); !s.ok()) return s;
  }
  std::vector<std::string> wanted = image.packages;
  wanted.insert(wanted.begin(), image.kernel);
  std::vector<std::string> missing = missing_packages(*status, wanted);
  if (missing.empty()) {
    ctx.step("the root filesystem has the kernel and all " + std::to_string(image.packages.size()) + " packages");
    return success();
  }
  // apt leaves its binary caches behind (nothing cleans them up here), for the drivers stage.
  AptSession session(ctx.root);
  if (auto s = ctx.runner.run(Command{{"sh", "-ec", divert_initramfs_script(), "sh", ctx.root},
                                      {},
                                      "divert update-initramfs while the image is built"});
      !s.ok())
    return s;
  ctx.step("apt-get update (the root filesystem's own sources)");
  if (auto s = ctx.runner.run(in_image(ctx.root, {"apt-get", "update", "-q"}, "apt-get update in the image")); !s.ok())
    return s;
  return apt_install(ctx, missing, "install what the root filesystem lacks: " + join(missing, " "));
}

// mmdebstrap removes apt's binary caches (/var/cache/apt/*.bin) with the downloaded
// packages; built once here, they spare every build that reuses this base from parsing the
// whole package index again (about a second each). Hygiene removes them from the image.
Status keep_apt_caches(StageContext& ctx) {
  ctx.step("apt-cache gencaches");
  return ctx.runner.run(in_image(ctx.root, {"apt-cache", "gencaches", "-q"}, "build apt's caches in the image"));
}

}  // namespace

Status run_base(StageContext& ctx) {
  const ImageSpec& image = ctx.recipe.recipe.image;
  if (!image.rootfs_url.empty()) return base_from_archive(ctx, image);
  std::vector<std::string> sources;
  if (image.mirror == "host") {
    sources = host_apt_source_files(ctx.where.apt_dir);
    if (sources.empty())
      return Status::fail("mirror = \"host\", but " + ctx.where.apt_dir +
                          " has no apt sources (sources.list or sources.list.d/*.list|*.sources)");
  }
  std::error_code ec;
  if (image.distro == Distro::ubuntu && !fs::exists(kUbuntuKeyring, ec))
    return Status::fail(std::string("bootstrapping Ubuntu needs its archive keyring at ") + kUbuntuKeyring +
                        " (package ubuntu-keyring)");
  // mmdebstrap wants an empty or absent target.
  fs::remove_all(ctx.root, ec);
  Command c = bootstrap_command(image, ctx.root, sources, ctx.plan.settings.source_date_epoch);
  ctx.step("mmdebstrap " + image.suite + ": " + std::to_string(image.packages.size() + 1) +
           " packages and their dependencies");
  if (auto s = ctx.runner.run(c); !s.ok()) return s;
  return keep_apt_caches(ctx);
}

}  // namespace railyard
