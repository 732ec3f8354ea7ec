#include "apt.h"

#include <filesystem>
#include <optional>

#include "image_files.h"
#include "package_pool.h"

namespace railyard {

namespace fs = std::filesystem;

AptSession::AptSession(std::string root) : root_(std::move(root)) {
  std::error_code ec;
  fs::path resolv = fs::path(root_) / "etc/resolv.conf";
  had_resolv_ = fs::exists(fs::symlink_status(resolv, ec));
  if (had_resolv_) fs::rename(resolv, resolv.string() + ".railyard-saved", ec);
  fs::copy_file("/etc/resolv.conf", resolv, fs::copy_options::overwrite_existing, ec);
  (void)write_file_atomically(root_ + "/usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n", 0755);
}

AptSession::~AptSession() {
  std::error_code ec;
  fs::path resolv = fs::path(root_) / "etc/resolv.conf";
  fs::remove(resolv, ec);
  if (had_resolv_) fs::rename(resolv.string() + ".railyard-saved", resolv, ec);
  fs::remove(fs::path(root_) / "usr/sbin/policy-rc.d", ec);
}

Status apt_install(StageContext& ctx, const std::vector<std::string>& packages, const std::string& why) {
  if (packages.empty()) return success();
  std::optional<PackagePool> own;
  PackagePool& pool = ctx.packages ? *ctx.packages : own.emplace(ctx.downloads + "/" + kPackagePoolDir, ctx.hasher);
  auto loan = pool.lend(ctx.root);
  if (!loan.ok()) return Status::fail(loan.error());
  if (loan->packages)
    ctx.step(std::to_string(loan->packages) + " packages (" + std::to_string(loan->bytes >> 10) +
             " KiB) from the cache's downloads, verified against the package index");
  std::vector<std::string> argv = {"apt-get", "install", "-y", "-q", "--no-install-recommends"};
  argv.insert(argv.end(), packages.begin(), packages.end());
  Command c = in_image(ctx.root, argv, why);
  c.env["SOURCE_DATE_EPOCH"] = std::to_string(ctx.plan.settings.source_date_epoch);
  Status installed = ctx.runner.run(c);
  // Kept even when the install failed: what apt downloaded is complete and verified.
  auto kept = pool.keep(ctx.root, *loan);
  if (!installed.ok()) return installed;
  if (!kept.ok()) return Status::fail(kept.error());
  return success();
}

namespace {

const std::string kDiverted = std::string(kInitramfsUpdater) + ".railyard";

}  // namespace

std::string divert_initramfs_script() {
  const std::string u = kInitramfsUpdater;
  return "chroot \"$1\" dpkg-divert --quiet --local --rename --divert " + kDiverted + " --add " + u +
         " && printf '#!/bin/sh\\n# railyard build: the image is the initramfs; hygiene restores this\\nexit 0\\n' > "
         "\"$1" +
         u + "\" && chmod 0755 \"$1" + u + "\"";
}

Status restore_initramfs(StageContext& ctx) {
  auto diversions = read_whole_file(ctx.root + "/var/lib/dpkg/diversions");
  if (!diversions.ok() || diversions->find(kDiverted + "\n") == std::string::npos) return success();
  const std::string u = kInitramfsUpdater;
  Command c{{"sh", "-ec", "rm -f \"$1" + u + "\" && chroot \"$1\" dpkg-divert --quiet --local --rename --remove " + u,
             "sh", ctx.root},
            {},
            "restore update-initramfs in the image"};
  if (auto s = ctx.runner.run(c); !s.ok()) return s;
  std::error_code ec;
  for (const char* link : {"initrd.img", "initrd.img.old"}) {
    fs::path p = fs::path(ctx.root) / link;
    if (fs::is_symlink(p, ec) && !fs::exists(fs::path(ctx.root) / fs::read_symlink(p, ec).relative_path(), ec))
      fs::remove(p, ec);
  }
  return success();
}

}  // namespace railyard
