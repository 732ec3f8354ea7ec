// Its cache key (what defines the drivers stage) is computed purely in core/build_plan.cc (plan_build).
#include "drivers.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "apt.h"
#include "apt_key.h"
#include "build_tools.h"
#include "downloads.h"
#include "image_files.h"
#include "stage.h"
#include "text.h"
#include "unpack.h"

namespace railyard {

namespace fs = std::filesystem;

std::string keyring_path(const DriverManifest& m, bool armored) {
  return "/usr/share/keyrings/railyard-" + m.name + (armored ? ".asc" : ".gpg");
}

std::string apt_source_deb822(const DriverManifest& m, const std::string& keyring) {
  std::string out = "# " + m.name + " " + m.version + ", written by railyard build\n";
  out += "Types: deb\nURIs: " + m.apt.uri + "\nSuites: " + m.apt.suite + "\n";
  // A flat repository ("./") has no components; deb822 then has no Components field.
  if (!m.apt.components.empty()) out += "Components: " + join(m.apt.components, " ") + "\n";
  out += "Signed-By: " + keyring + "\n";
  return out;
}

std::string apt_pin(const DriverManifest& m) {
  if (m.apt.pin_priority == 0) return "";
  std::string host = m.apt.uri;
  if (auto p = host.find("://"); p != std::string::npos) host = host.substr(p + 3);
  host = host.substr(0, host.find('/'));
  // apt's origin is the host alone: "Pin: origin host:8080" matches nothing.
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (host.starts_with('[')) host = host.substr(0, host.find(']') + 1);
  else host = host.substr(0, host.find(':'));
  return "# " + m.name + " " + m.version +
         ": prefer its packages over the distribution's\n"
         "Package: *\nPin: origin " +
         host + "\nPin-Priority: " + std::to_string(m.apt.pin_priority) + "\n";
}

std::string apt_pin_path(const DriverManifest& m) { return "/etc/apt/preferences.d/railyard-" + m.name + ".pref"; }

namespace {

// The bundle whose repository URI `uri` is under ("http://host/repo/ ./ InRelease" → the one
// whose apt.uri starts it).
const DriverManifest* bundle_of_uri(const std::vector<DriverManifest>& bundles, const std::string& uri) {
  for (const auto& b : bundles) {
    if (b.kind != DriverKind::apt || b.apt.uri.empty()) continue;
    std::string base = b.apt.uri;
    if (!base.ends_with('/')) base += '/';
    std::string u = uri.ends_with('/') ? uri : uri + "/";
    if (u.starts_with(base) || base.starts_with(u)) return &b;
  }
  return nullptr;
}

// The first "http(s)://..." word of a line, without a trailing quote or colon.
std::string uri_in(const std::string& line) {
  auto at = line.find("://");
  if (at == std::string::npos) return "";
  auto start = line.find_last_of(" '\"", at);
  start = start == std::string::npos ? 0 : start + 1;
  auto end = line.find_first_of(" '\"", at);
  std::string u = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
  while (!u.empty() && (u.back() == ':' || u.back() == ',')) u.pop_back();
  return u;
}

// The word after `marker` in `line` ("NO_PUBKEY 0648AA8A…" → "0648AA8A…").
std::string word_after(const std::string& line, const std::string& marker) {
  auto at = line.find(marker);
  if (at == std::string::npos) return "";
  at += marker.size();
  while (at < line.size() && (line[at] == ' ' || line[at] == '\'')) ++at;
  auto end = line.find_first_of(" '\n", at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

std::string explain_apt_failure(const std::string& apt_output, const std::vector<DriverManifest>& bundles,
                                const std::string& installing) {
  std::vector<std::pair<const DriverManifest*, std::string>> causes;
  auto add = [&](const DriverManifest* b, const std::string& cause) {
    if (!b) return;
    for (const auto& c : causes)
      if (c.first == b && c.second == cause) return;
    causes.emplace_back(b, cause);
  };
  auto fingerprint = [](const DriverManifest& b) {
    return b.apt.key_fingerprint.empty() ? std::string("fetched from key_url") : b.apt.key_fingerprint;
  };
  std::map<const DriverManifest*, std::string> wrong_key;  // the key id a repository's signature names
  for (const auto& raw : split(apt_output, '\n')) {
    std::string line = trim(raw);
    if (line.find("NO_PUBKEY") != std::string::npos)
      if (const auto* b = bundle_of_uri(bundles, uri_in(line))) wrong_key[b] = word_after(line, "NO_PUBKEY");
  }
  for (const auto& raw : split(apt_output, '\n')) {
    std::string line = trim(raw);
    const std::string uri = uri_in(line);
    const DriverManifest* b = uri.empty() ? nullptr : bundle_of_uri(bundles, uri);
    if (b && line.starts_with("E: The repository") && line.find("is not signed") != std::string::npos) {
      if (auto k = wrong_key.find(b); k != wrong_key.end())
        add(b, "its repository " + b->apt.uri + " is signed by key " + k->second + ", not by the bundle's key (" +
                   fingerprint(*b) + "): a wrong key_url or key_fingerprint, or a repository that is not the vendor's");
      else
        add(b, "its repository " + b->apt.uri +
                   " is not signed (no InRelease, no Release.gpg); apt installs from "
                   "signed repositories only");
    } else if (b && (line.find("BADSIG") != std::string::npos ||
                     line.find("signatures were invalid") != std::string::npos)) {
      add(b, "its repository " + b->apt.uri + " has a bad signature (a tampered or half-published Release): " + line);
    } else if (b && line.find("EXPKEYSIG") != std::string::npos) {
      add(b, "its repository " + b->apt.uri + " is signed by an expired key: " + line);
    } else if (b && (line.starts_with("E: Failed to fetch") || line.starts_with("Err:"))) {
      if (line.find(" 404") != std::string::npos || line.find("Not Found") != std::string::npos)
        add(b, "apt found nothing at " + uri + " (404): check apt.uri and apt.suite");
    }
    std::string missing = word_after(line, "E: Unable to locate package");
    if (missing.empty() && line.starts_with("E: Package '") &&
        line.find("has no installation candidate") != std::string::npos)
      missing = word_after(line, "E: Package");
    if (!missing.empty()) {
      const DriverManifest* owner = nullptr;
      for (const auto& c : bundles)
        if (std::find(c.packages.begin(), c.packages.end(), missing) != c.packages.end()) owner = &c;
      if (!owner)
        for (const auto& c : bundles)
          if (c.name == installing) owner = &c;
      if (owner)
        add(owner,
            "package " + missing + " is in none of the image's repositories" +
                (owner->kind == DriverKind::apt ? " (its own, " + owner->apt.uri + ", nor the distribution's)" : ""));
    }
  }
  std::vector<std::string> out;
  for (const auto& [b, cause] : causes)
    out.push_back(b->path + ": bundle " + b->name + " " + b->version + ": " + cause);
  return join(out, "\n");
}

std::vector<std::string> dkms_module_files(const std::vector<std::string>& updates,
                                           const std::vector<std::string>& built) {
  std::vector<std::string> out;
  for (const auto& f : updates) {
    std::string base = f.substr(f.rfind('/') + 1);
    if (std::find(built.begin(), built.end(), base) != built.end()) out.push_back(f);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ManifestDkms> parse_dkms_status(const std::string& text, const std::string& kernel) {
  std::vector<ManifestDkms> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    // "mlnx-ofed-kernel/24.10, 6.1.0-28-amd64, x86_64: installed"
    auto colon = line.rfind(": ");
    if (colon == std::string::npos || line.compare(colon + 2, 9, "installed") != 0) continue;
    auto fields = split(line.substr(0, colon), ',');
    if (fields.size() < 2) continue;
    std::string nv = trim(fields[0]), kver = trim(fields[1]);
    auto slash = nv.find('/');
    if (slash == std::string::npos || kver != kernel) continue;
    out.push_back({nv.substr(0, slash), nv.substr(slash + 1), kver, {}});
  }
  return out;
}

namespace {

// The bundle's signing key: shipped beside its manifest (key_file), or fetched (key_url) and
// accepted only as the one key pinned by key_fingerprint (or, unpinned, over https alone).
// A pinned key is kept in the downloads under its fingerprint and not fetched again.
Outcome<std::string> repository_key(StageContext& ctx, const DriverManifest& m) {
  using Result = Outcome<std::string>;
  if (!m.apt.key_file.empty()) {
    auto key = read_whole_file(path_join(dir_name(m.path), m.apt.key_file));
    if (!key.ok()) return Result::fail(m.path + ": apt.key_file: " + key.error());
    return *key;
  }
  std::int64_t now = std::time(nullptr);
  auto check = [&](const std::string& path) -> Status {
    auto keys = read_public_keys(ctx.runner, path);
    if (!keys.ok()) return Status::fail(keys.error());
    return check_pinned_key(*keys, m.apt.key_fingerprint, now);
  };
  std::error_code ec;
  std::string pinned = normalized_fingerprint(m.apt.key_fingerprint);
  std::string dest = ctx.downloads + "/keys/" + (pinned.empty() ? m.name + ".unpinned" : pinned) + ".key";
  if (pinned.empty() || !fs::is_regular_file(dest, ec) || !check(dest).ok()) {
    if (pinned.empty()) fs::remove(dest, ec);  // authenticated by TLS only: never reused
    ctx.step("fetch " + m.name + "'s signing key " + m.apt.key_url +
             (pinned.empty() ? "" : " (pinned " + pinned + ")"));
    auto got = fetch_checked(m.apt.key_url, check, dest, stage_fetch_options(ctx));
    if (!got.ok()) return Result::fail(m.path + ": apt.key_url: " + got.error());
  }
  auto key = read_whole_file(dest);
  if (!key.ok()) return Result::fail(m.path + ": apt.key_url: " + key.error());
  return *key;
}

Status add_repository(StageContext& ctx, const LoadedManifest& lm) {
  const DriverManifest& m = lm.manifest;
  auto key = repository_key(ctx, m);
  if (!key.ok()) return Status::fail(key.error());
  bool armored = key->find("-----BEGIN PGP PUBLIC KEY BLOCK-----") != std::string::npos;
  std::string keyring = keyring_path(m, armored);
  if (auto s = write_file_atomically(ctx.root + keyring, *key); !s.ok()) return s;
  if (auto s = write_file_atomically(ctx.root + "/etc/apt/sources.list.d/railyard-" + m.name + ".sources",
                                     apt_source_deb822(m, keyring));
      !s.ok())
    return s;
  if (std::string pin = apt_pin(m); !pin.empty())
    if (auto s = write_file_atomically(ctx.root + apt_pin_path(m), pin); !s.ok()) return s;
  return success();
}

// The DKMS modules a bundle names, as dkms status reports them installed for `kver`, with
// their .ko files.
Outcome<std::vector<ManifestDkms>> installed_dkms(StageContext& ctx, const DriverManifest& m, const std::string& kver) {
  using Result = Outcome<std::vector<ManifestDkms>>;
  auto status = ctx.runner.capture(in_image(ctx.root, {"dkms", "status", "-k", kver}, "dkms status"));
  if (!status.ok()) return Result::fail(status.error());
  std::vector<ManifestDkms> all = parse_dkms_status(*status, kver), out;
  for (const auto& want : m.dkms) {
    auto it = std::find_if(all.begin(), all.end(), [&](const ManifestDkms& b) { return b.module == want; });
    if (it == all.end())
      return Result::fail(m.path + ": DKMS module " + want + " is not installed for kernel " + kver +
                          " (dkms status: " + trim(*status) + ")");
    ManifestDkms b = *it;
    std::error_code ec;
    auto is_module = [](const fs::path& p) {
      const std::string s = p.string();
      return s.ends_with(".ko") || s.ends_with(".ko.xz") || s.ends_with(".ko.zst");
    };
    // What DKMS built for this module (it keeps a copy per kernel and architecture), found
    // among what it installed: each bundle records its own modules, not every DKMS module.
    std::vector<std::string> built, updates;
    const fs::path kept = fs::path(ctx.root) / "var/lib/dkms" / want / b.version / kver;
    for (auto e = fs::recursive_directory_iterator(kept, ec); !ec && e != fs::recursive_directory_iterator();
         e.increment(ec))
      if (is_module(e->path())) built.push_back(e->path().filename().string());
    fs::path dir = fs::path(ctx.root) / "lib/modules" / kver;
    for (auto e = fs::recursive_directory_iterator(dir / "updates", ec); !ec && e != fs::recursive_directory_iterator();
         e.increment(ec))
      if (is_module(e->path())) updates.push_back(e->path().lexically_relative(ctx.root).string());
    b.files = dkms_module_files(updates, built);
    if (b.files.empty())
      return Result::fail("DKMS module " + want + " " + b.version +
                          " reports installed, but no .ko is under /lib/modules/" + kver + "/updates");
    std::sort(b.files.begin(), b.files.end());
    out.push_back(std::move(b));
  }
  return out;
}

// The last lines of a failed DKMS build's make.log, which say why.
std::string make_log_tail(const StageContext& ctx, const std::string& module, const std::string& version) {
  auto log = read_whole_file(ctx.root + "/var/lib/dkms/" + module + "/" + version + "/build/make.log");
  if (!log.ok()) return "";
  std::vector<std::string> lines = split(trim(*log), '\n');
  std::size_t from = lines.size() > 15 ? lines.size() - 15 : 0;
  std::string out = "\n  make.log (last lines):";
  for (std::size_t i = from; i < lines.size(); ++i) out += "\n    " + escape_control(lines[i]);
  return out;
}

// A kind = "source" bundle's tree as DKMS expects it, /usr/src/NAME-VERSION, registered and
// built for `kver` by name (no autoinstall guesswork). Only directories and regular files
// are copied: a link in the tree could point anywhere on the build host.
Status install_source_module(StageContext& ctx, const DriverManifest& m, const std::string& kver) {
  const std::string& module = m.dkms.front();
  const std::string dest = "/usr/src/" + module + "-" + m.version;
  std::error_code ec;
  fs::remove_all(ctx.root + dest, ec);
  fs::create_directories(ctx.root + dest, ec);
  if (ec) return Status::fail(ctx.root + dest + ": " + ec.message());
  const fs::path from = m.source_dir();
  for (auto e = fs::recursive_directory_iterator(from, ec); !ec && e != fs::recursive_directory_iterator();
       e.increment(ec)) {
    fs::path to = fs::path(ctx.root + dest) / e->path().lexically_relative(from);
    if (e->is_symlink())
      return Status::fail(e->path().string() + ": a symbolic link; a source bundle holds plain files");
    if (e->is_directory()) fs::create_directories(to, ec);
    else if (e->is_regular_file()) fs::copy_file(e->path(), to, fs::copy_options::overwrite_existing, ec);
    else return Status::fail(e->path().string() + ": not a regular file or directory");
    if (ec) return Status::fail(to.string() + ": " + ec.message());
  }
  if (ec) return Status::fail(from.string() + ": " + ec.message());
  std::string nv = module + "/" + m.version;
  if (auto s = ctx.runner.run(in_image(ctx.root, {"dkms", "add", nv}, "dkms add " + nv)); !s.ok()) return s;
  if (auto s = ctx.runner.run(
          in_image(ctx.root, {"dkms", "install", nv, "-k", kver}, "dkms install " + nv + " for " + kver));
      !s.ok())
    return Status::fail(m.path + ": DKMS build of " + nv + " for " + kver + " failed: " + s.error() +
                        make_log_tail(ctx, module, m.version));
  return success();
}

// DKMS signs what it builds with a key it makes when there is none: a new key at every build
// (no image would be reproducible) left in every node's image. Kernels that enforce module
// signatures need the operator's enrolled key anyway, so the build signs nothing.
constexpr const char* kDkmsNoSigning = "/etc/dkms/framework.conf.d/railyard-no-signing.conf";
constexpr const char* kDkmsNoSigningText =
    "# Written by railyard build: DKMS signs no module in this image. Its own key would be made on the\n"
    "# build host, anew at every build, and shipped to every node; enforce signatures with your own key.\n"
    "sign_file=/nonexistent/railyard-signs-no-module\n";

// dkms and the kernel's headers, with what they pull in (the compiler, make): `added` is
// what they brought, everything the purge after the builds may take. Installed before any
// bundle's packages, so that what a vendor's DKMS package pulls in for dkms is counted.
Status install_build_tools(StageContext& ctx, const std::string& kver, std::optional<std::set<std::string>>& added) {
  auto before = installed_package_names(ctx.root);
  if (!before.ok()) return Status::fail(before.error());
  if (auto s = apt_install(ctx, {"dkms", "linux-headers-" + kver}, "install DKMS and the headers of " + kver); !s.ok())
    return s;
  auto after = installed_package_names(ctx.root);
  if (!after.ok()) return Status::fail(after.error());
  added.emplace();
  std::set_difference(after->begin(), after->end(), before->begin(), before->end(),
                      std::inserter(*added, added->end()));
  return write_file_atomically(ctx.root + kDkmsNoSigning, kDkmsNoSigningText);
}

// DKMS modules are built for the image's kernel, named explicitly: in a chroot `uname -r`
// is the build host's, which is what dkms' package scripts would otherwise build for. The
// tools are installed once per stage; `added` collects what they brought in.
Outcome<std::vector<ManifestDkms>> build_dkms(StageContext& ctx, const DriverManifest& m, const std::string& kver,
                                              std::optional<std::set<std::string>>& added) {
  using Result = Outcome<std::vector<ManifestDkms>>;
  if (!added)
    if (auto s = install_build_tools(ctx, kver, added); !s.ok()) return Result::fail(s.error());
  if (m.kind == DriverKind::source) {
    if (auto s = install_source_module(ctx, m, kver); !s.ok()) return Result::fail(s.error());
  } else if (auto s = ctx.runner.run(
                 in_image(ctx.root, {"dkms", "autoinstall", "-k", kver}, "dkms autoinstall for " + kver));
             !s.ok()) {
    // Which of the bundle's modules failed, with the end of its make log.
    std::string why;
    auto status = ctx.runner.capture(in_image(ctx.root, {"dkms", "status", "-k", kver}, "dkms status"));
    std::vector<ManifestDkms> done = status.ok() ? parse_dkms_status(*status, kver) : std::vector<ManifestDkms>{};
    for (const auto& want : m.dkms) {
      if (std::any_of(done.begin(), done.end(), [&](const ManifestDkms& d) { return d.module == want; })) continue;
      std::error_code ec;
      for (const auto& v : fs::directory_iterator(fs::path(ctx.root) / "var/lib/dkms" / want, ec))
        if (v.is_directory() && !v.is_symlink() && v.path().filename() != "source")
          why += "\n" + m.path + ": bundle " + m.name + " " + m.version + ": DKMS build of " + want + "/" +
                 v.path().filename().string() + " for " + kver + " failed" +
                 make_log_tail(ctx, want, v.path().filename().string());
    }
    return Result::fail((why.empty() ? "" : why.substr(1) + "\n") + s.error());
  }
  return installed_dkms(ctx, m, kver);
}

// A vendor tarball: fetched once (kept by its sha256), unpacked under /var/tmp in the image,
// its install commands run there, then removed.
Status install_tarball(StageContext& ctx, const DriverManifest& m) {
  auto got = fetch_pinned_archive(ctx, m.tarball.url, m.tarball.sha256, m.name);
  if (!got.ok()) return Status::fail(m.path + ": tarball.url: " + got.error());
  std::error_code ec;
  std::string inside = "/var/tmp/railyard-" + m.name;
  fs::remove_all(ctx.root + inside, ec);
  fs::create_directories(ctx.root + inside, ec);
  if (auto u = unpack_archive(got->path, ctx.root + inside, {}); !u.ok()) return Status::fail(u.error());
  for (const auto& cmd : m.tarball.install) {
    ctx.step(m.name + ": " + cmd);
    Command c = in_image(ctx.root, {"/bin/sh", "-ec", "cd " + inside + " && " + cmd}, m.name + " install: " + cmd);
    c.env["SOURCE_DATE_EPOCH"] = std::to_string(ctx.plan.settings.source_date_epoch);
    if (auto s = ctx.runner.run(c); !s.ok()) return s;
  }
  fs::remove_all(ctx.root + inside, ec);
  return success();
}

bool has_package_index(const std::string& root) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root + "/var/lib/apt/lists", ec))
    if (e.path().filename().string().ends_with("_Packages")) return true;
  return false;
}

}  // namespace

Status run_drivers(StageContext& ctx) {
  auto kver = image_kernel_version(ctx.root);
  if (!kver.ok()) return Status::fail(kver.error());
  std::vector<ManifestDriver> records;
  std::optional<std::set<std::string>> tools;  // what the DKMS build tools brought in, once installed
  BuildTools build_tools;
  {
    AptSession session(ctx.root);
    for (const auto& lm : ctx.recipe.drivers)
      if (lm.manifest.kind == DriverKind::apt)
        if (auto s = add_repository(ctx, lm); !s.ok()) return s;
    // The base keeps its package index: install from the snapshot the base came from, and
    // refresh it only when a vendor repository was added or the mirror moved on.
    bool vendor_repos = std::any_of(ctx.recipe.drivers.begin(), ctx.recipe.drivers.end(),
                                    [](const LoadedManifest& lm) { return lm.manifest.kind == DriverKind::apt; });
    std::vector<DriverManifest> bundles;
    for (const auto& lm : ctx.recipe.drivers) bundles.push_back(lm.manifest);
    // apt's refusal first in the bundle's terms, then apt's own words.
    auto explained = [&](Status s, const std::string& installing) -> Status {
      if (s.ok()) return s;
      std::string why = explain_apt_failure(s.error(), bundles, installing);
      return why.empty() ? s : Status::fail(why + "\n" + s.error());
    };
    bool updated = false;
    auto update = [&]() -> Status {
      ctx.step("apt-get update");
      updated = true;
      return explained(ctx.runner.run(in_image(ctx.root, {"apt-get", "update", "-q"}, "apt-get update in the image")),
                       "");
    };
    if (vendor_repos || !has_package_index(ctx.root))
      if (auto s = update(); !s.ok()) return s;
    // An install from the base's index, tried again once on a fresh index: the mirror may have
    // moved on since the base was built.
    auto with_fresh_index = [&](const std::function<Status()>& install) -> Status {
      Status s = install();
      if (s.ok() || updated) return s;
      ctx.step("the base's package index is stale; updating it");
      if (auto u = update(); !u.ok()) return u;
      return install();
    };
    std::set<std::string> stage_base;  // installed before the bundles (when one has DKMS modules)
    if (std::any_of(bundles.begin(), bundles.end(), [](const DriverManifest& m) { return !m.dkms.empty(); })) {
      auto base = installed_package_names(ctx.root);
      if (!base.ok()) return Status::fail(base.error());
      stage_base = std::move(*base);
      ctx.step("DKMS and the headers of " + *kver);
      if (auto s = with_fresh_index([&] { return install_build_tools(ctx, *kver, tools); }); !s.ok()) return s;
    }
    for (const auto& lm : ctx.recipe.drivers) {
      const DriverManifest& m = lm.manifest;
      ManifestDriver r{m.name, m.version, to_string(m.kind), m.packages, m.modules, {}, m.emulates};
      if (m.kind == DriverKind::tarball)
        if (auto s = install_tarball(ctx, m); !s.ok()) return s;
      ctx.step(m.name + " " + m.version + ": " + std::to_string(m.packages.size()) + " packages");
      Status installed = m.packages.empty() ? success() : with_fresh_index([&] {
        return apt_install(ctx, m.packages, "install " + m.name + " packages");
      });
      if (!installed.ok()) return explained(installed, m.name);
      if (!m.dkms.empty()) {
        ctx.step(m.name + ": DKMS " + join(m.dkms, ", ") + " for " + *kver);
        auto built = build_dkms(ctx, m, *kver, tools);
        if (!built.ok()) return Status::fail(built.error());
        r.dkms = *built;
      }
      records.push_back(std::move(r));
    }
    if (tools && ctx.recipe.recipe.image.keep_build_tools) {
      build_tools.kept.assign(tools->begin(), tools->end());
    } else if (tools) {
      ctx.step("remove the DKMS build tools (" + std::to_string(tools->size()) + " packages)");
      auto now = installed_package_names(ctx.root);
      if (!now.ok()) return Status::fail(now.error());
      std::set<std::string> stage_added;
      std::set_difference(now->begin(), now->end(), stage_base.begin(), stage_base.end(),
                          std::inserter(stage_added, stage_added.end()));
      std::vector<std::string> modules;
      for (const auto& r : records)
        for (const auto& k : r.dkms) modules.insert(modules.end(), k.files.begin(), k.files.end());
      auto removed = remove_build_tools(ctx, *tools, stage_added, modules, *kver);
      if (!removed.ok()) return Status::fail(removed.error());
      build_tools = *removed;
      if (!build_tools.why_kept.empty()) ctx.step("build tools kept: " + build_tools.why_kept);
      if (!build_tools.sources_removed.empty())
        ctx.step("removed with them, their built modules kept: " + join(build_tools.sources_removed, ", "));
    }
  }
  const std::string records_dir = ctx.root + "/" + kImageRecordDir + "/";
  if (auto s = write_file_atomically(records_dir + kBuildToolsRecord, render_build_tools_record(build_tools)); !s.ok())
    return s;
  return write_file_atomically(records_dir + "drivers.json", render_drivers_record(records));
}

}  // namespace railyard
