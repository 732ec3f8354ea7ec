#include "base.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUbuntuKeyring = "/usr/share/keyrings/ubuntu-archive-keyring.gpg";

}  // namespace

Command bootstrap_command(const ImageSpec& image, const std::string& root, const std::vector<std::string>& sources,
                          long long source_date_epoch) {
  std::vector<std::string> include = image.packages;
  include.insert(include.begin(), image.kernel);
  Command c;
  c.argv = {"mmdebstrap",
            "--mode=root",
            "--variant=minbase",
            std::string("--arch=") + (image.arch == Arch::amd64 ? "amd64" : "arm64"),
            "--components=" + join(image.components, ","),
            "--include=" + join(include, ","),
            "--aptopt=Acquire::Retries \"3\"",
            // Recommends would make the image depend on apt's mood; recipes list what they need.
            "--aptopt=APT::Install-Recommends \"false\"",
            // The package index stays for the drivers stage (it installs from the same
            // snapshot of the mirror the base came from); hygiene removes it from the image.
            "--skip=cleanup/apt/lists"};
  if (image.distro == Distro::ubuntu) c.argv.push_back(std::string("--keyring=") + kUbuntuKeyring);
  c.argv.push_back(image.suite);
  c.argv.push_back(root);
  if (image.mirror == "host")
    c.argv.insert(c.argv.end(), sources.begin(), sources.end());
  else
    c.argv.push_back(image.mirror);
  c.env = {{"SOURCE_DATE_EPOCH", std::to_string(source_date_epoch)}, {"LC_ALL", "C.UTF-8"}};
  c.what = "bootstrap " + image.suite;
  return c;
}

Status run_base(StageContext& ctx) {
  const ImageSpec& image = ctx.recipe.recipe.image;
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
  ctx.step("mmdebstrap " + image.suite + ": " + std::to_string(image.packages.size() + 1) + " packages and their dependencies");
  return ctx.runner.run(c);
}

}  // namespace railyard
