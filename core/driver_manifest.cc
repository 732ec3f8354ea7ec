#include "driver_manifest.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "net.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

const std::vector<std::pair<std::string, DriverKind>> kKinds{
    {"distro", DriverKind::distro}, {"apt", DriverKind::apt}, {"tarball", DriverKind::tarball}};

std::optional<std::string> check_package(const std::string& s) {
  for (char c : s)
    if (!std::islower(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) &&
        std::string("+-._:=*~").find(c) == std::string::npos)
      return "'" + s + "' is not a package name (a-z 0-9 + - . _, optionally =version)";
  return std::nullopt;
}

std::optional<std::string> check_suite_pair(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    return "'" + s + "' is not \"distro:suite\", like \"debian:bookworm\" or \"ubuntu:noble\"";
  std::string distro = s.substr(0, colon);
  if (distro != "debian" && distro != "ubuntu") return "'" + s + "': distro must be debian or ubuntu";
  return std::nullopt;
}

std::optional<std::string> check_fingerprint(const std::string& s) {
  if (auto e = check_hex(s, 40)) return "key fingerprint " + *e + " (the full OpenPGP v4 fingerprint)";
  return std::nullopt;
}

std::optional<std::string> check_relative(const std::string& s) {
  if (s.front() == '/' || s.find("..") != std::string::npos) return "'" + s + "' must be a path inside drivers/";
  return std::nullopt;
}

schema::Schema<DriverManifest> build() {
  schema::Schema<DriverManifest> s;
  s.top("One driver release: where its packages come from, what is built and loaded.")
      .integer("schema", &DriverManifest::schema, 1, 1, 1, "Manifest format version.")
      .string("name", &DriverManifest::name, "", "Bundle name; must equal the file name without .toml.")
      .required_string("version", &DriverManifest::version, "Release string recorded in the image manifest.")
      .string("description", &DriverManifest::description, "", "One line for humans.")
      .choice("kind", &DriverManifest::kind, DriverKind::distro, kKinds,
              "distro: packages from the image's own archive; apt: a vendor repository with its signing key; "
              "tarball: an archive pinned by sha256.")
      .strings("suites", &DriverManifest::suites, {}, "\"distro:suite\" pairs this release installs on; empty: any.",
               check_suite_pair, "\"distro:suite\"")
      .strings("packages", &DriverManifest::packages, {}, "Packages installed from the bundle's source.", check_package,
               "package names")
      .strings("dkms", &DriverManifest::dkms, {},
               "DKMS modules that must be built for the image's kernel (checked under /lib/modules/KVER).")
      .strings("modules", &DriverManifest::modules, {}, "Kernel modules loaded at boot.")
      .strings("conflicts", &DriverManifest::conflicts, {}, "Bundles that cannot share an image with this one.");
  s.section("apt", &DriverManifest::apt, "kind = \"apt\": the vendor repository.")
      .string("uri", &AptSource::uri, "", "Repository URL.", [](const std::string& v) { return check_http_url(v); },
              "an http(s):// URL")
      .string("suite", &AptSource::suite, "", "Distribution name, or \"./\" / \"/\" for a flat repository.")
      .strings("components", &AptSource::components, {}, "Components; empty for a flat repository.")
      .string("key_file", &AptSource::key_file, "", "Signing key shipped in drivers/ (path relative to the manifest).",
              check_relative, "a path inside drivers/")
      .string("key_url", &AptSource::key_url, "", "Where the builder fetches the signing key (armored or binary). Read with gpg: the "
              "file must hold exactly one key, neither revoked nor expired, with key_fingerprint when set; "
              "a pinned key is kept in the cache's downloads under its fingerprint, an unpinned one fetched "
              "at every build.",
              [](const std::string& v) { return check_http_url(v); }, "an http(s):// URL")
      .string("key_fingerprint", &AptSource::key_fingerprint, "",
              "Full fingerprint the fetched key must have (40 hex digits); needed when key_url is http://.",
              check_fingerprint, "40 hex digits")
      .integer("pin_priority", &AptSource::pin_priority, 0, 0, 1001,
               "apt pin priority of this repository's origin (e.g. 600 so its packages win over the distro's); 0: no pin.");
  s.section("tarball", &DriverManifest::tarball, "kind = \"tarball\": a vendor archive.")
      .string("url", &TarballSource::url, "", "Archive URL.", [](const std::string& v) { return check_http_url(v); },
              "an http(s):// URL")
      .string("sha256", &TarballSource::sha256, "", "sha256 of the archive.",
              [](const std::string& v) { return check_hex(v, 64); }, "64 hex digits")
      .strings("install", &TarballSource::install, {}, "Command run in the image from the unpacked archive.");
  return s;
}

void validate(const FileSource& files, LoadedManifest& lm, const std::set<std::string>& failed, Diagnostics& diags) {
  auto& m = lm.manifest;
  auto at = [&](const std::string& key) {
    auto it = lm.positions.find(key);
    return it != lm.positions.end() ? it->second : SourcePos{m.path, 1, 1};
  };
  // A key rejected on its own is not also reported as missing.
  auto rejected = [&](const std::string& key) {
    auto dot = key.find('.');
    return failed.count(key) || (dot != std::string::npos && failed.count(key.substr(0, dot)));
  };
  auto need = [&](bool present, const std::string& key, const std::string& msg) {
    if (!present && !rejected(key)) diags.error(at("kind"), msg);
  };
  std::string stem = file_stem(m.path);
  if (m.name.empty()) m.name = stem;
  else if (m.name != stem && !rejected("name"))
    diags.error(at("name"), "name '" + m.name + "' must equal the file name '" + stem + "' (recipes refer to bundles by file name)");
  if (!rejected("kind")) {
    switch (m.kind) {
      case DriverKind::distro:
        need(!m.packages.empty(), "packages", "kind = \"distro\" needs 'packages'");
        break;
      case DriverKind::apt:
        need(!m.apt.uri.empty(), "apt.uri", "kind = \"apt\" needs [apt] uri");
        need(!m.apt.suite.empty(), "apt.suite", "kind = \"apt\" needs [apt] suite (\"./\" for a flat repository)");
        if (!rejected("apt.key_file") && !rejected("apt.key_url"))
          need(!m.apt.key_file.empty() || !m.apt.key_url.empty(), "apt",
               "kind = \"apt\" needs a signing key: [apt] key_file, or key_url with key_fingerprint");
        need(!m.packages.empty(), "packages", "kind = \"apt\" needs 'packages'");
        break;
      case DriverKind::tarball:
        need(!m.tarball.url.empty(), "tarball.url", "kind = \"tarball\" needs [tarball] url");
        need(!m.tarball.sha256.empty(), "tarball.sha256", "kind = \"tarball\" needs [tarball] sha256");
        need(!m.tarball.install.empty(), "tarball.install", "kind = \"tarball\" needs [tarball] install");
        break;
    }
    if (m.kind != DriverKind::apt && lm.positions.count("apt"))
      diags.error(at("apt"), "[apt] is only used with kind = \"apt\"");
    if (m.kind != DriverKind::tarball && lm.positions.count("tarball"))
      diags.error(at("tarball"), "[tarball] is only used with kind = \"tarball\"");
  }
  // Over plain http only a pinned fingerprint authenticates the key; over https TLS does,
  // and the builder records the fetched key's fingerprint in manifest.json.
  if (!m.apt.key_url.empty() && m.apt.key_fingerprint.empty() && m.apt.key_url.rfind("https://", 0) != 0 &&
      !rejected("apt.key_fingerprint"))
    diags.error(at("apt.key_url"), "apt.key_url is http://: add apt.key_fingerprint, or fetch the key over https://");
  if (!m.apt.key_fingerprint.empty() && m.apt.key_url.empty() && !rejected("apt.key_url"))
    diags.error(at("apt.key_fingerprint"), "apt.key_fingerprint needs apt.key_url (a key_file is trusted as shipped)");
  if (!m.apt.key_file.empty() && !files.is_file(path_join(dir_name(m.path), m.apt.key_file)))
    diags.error(at("apt.key_file"), "apt.key_file '" + m.apt.key_file + "' does not exist next to the manifest");
  if (std::find(m.conflicts.begin(), m.conflicts.end(), m.name) != m.conflicts.end())
    diags.error(at("conflicts"), "a bundle cannot conflict with itself");
}
}  // namespace

bool DriverManifest::supports(const std::string& distro, const std::string& suite) const {
  if (suites.empty()) return true;
  return std::find(suites.begin(), suites.end(), distro + ":" + suite) != suites.end();
}

const schema::Schema<DriverManifest>& driver_manifest_schema() {
  static const schema::Schema<DriverManifest> s = build();
  return s;
}

std::string to_string(DriverKind k) {
  for (auto& [w, v] : kKinds)
    if (v == k) return w;
  return "?";
}

std::optional<LoadedManifest> load_driver_manifest(const FileSource& files, const std::string& path,
                                                   const toml::table& table, Diagnostics& diags) {
  LoadedManifest lm;
  std::size_t before = diags.size();
  std::set<std::string> failed;
  schema::ParseContext ctx{diags, lm.positions, path, &failed};
  driver_manifest_schema().parse(table, lm.manifest, ctx);
  for (const char* section : {"apt", "tarball"})
    if (const auto* n = table.get(section)) lm.positions[section] = schema::position_of(n->source(), path);
  lm.manifest.path = path;
  validate(files, lm, failed, diags);
  if (diags.size() != before) return std::nullopt;
  return lm;
}

std::optional<LoadedManifest> load_driver_manifest(const FileSource& files, const std::string& path,
                                                   Diagnostics& diags) {
  auto table = read_toml(files, path, diags);
  if (!table) return std::nullopt;
  return load_driver_manifest(files, path, *table, diags);
}

}  // namespace railyard
