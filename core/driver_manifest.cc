#include "driver_manifest.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "net.h"
#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

const std::vector<std::pair<std::string, DriverKind>> kDriverKinds{{"distro", DriverKind::distro},
                                                                   {"apt", DriverKind::apt},
                                                                   {"tarball", DriverKind::tarball},
                                                                   {"source", DriverKind::source}};

std::optional<std::string> check_emulated(const std::string& s) {
  if (s != kEmulatesDcb) return "'" + s + "' cannot be emulated; allowed: \"dcb\"";
  return std::nullopt;
}

// A DKMS package name or version becomes /usr/src/NAME-VERSION in the image.
bool dkms_word(const std::string& s) {
  if (s.empty() || s.size() > 64 || !std::isalnum(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string("._+~-").find(c) != std::string::npos;
  });
}

// dkms.conf is a shell fragment; railyard reads only its plain KEY="value" assignments.
std::map<std::string, std::pair<std::string, int>> dkms_conf_values(const std::string& text) {
  std::map<std::string, std::pair<std::string, int>> out;
  int line_no = 0;
  for (const auto& raw : split(text, '\n')) {
    ++line_no;
    std::string line = trim(raw);
    auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    out.emplace(line.substr(0, eq), std::make_pair(value, line_no));
  }
  return out;
}

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

schema::Schema<DriverManifest> make_driver_manifest_schema() {
  schema::Schema<DriverManifest> s;
  s.top("One driver release: where its packages come from, what is built and loaded.")
      .integer("schema", &DriverManifest::schema, 1, 1, 1, "Manifest format version.")
      .string("name", &DriverManifest::name, "", "Bundle name; must equal the file name without .toml.")
      .required_string("version", &DriverManifest::version, "Release string recorded in the image manifest.")
      .string("description", &DriverManifest::description, "", "One line for humans.")
      .choice("kind", &DriverManifest::kind, DriverKind::distro, kDriverKinds,
              "distro: packages from the image's own archive; apt: a vendor repository with its signing key; "
              "tarball: an archive pinned by sha256; source: a DKMS module whose source ships beside the manifest.")
      .strings("suites", &DriverManifest::suites, {}, "\"distro:suite\" pairs this release installs on; empty: any.",
               check_suite_pair, "\"distro:suite\"")
      .strings("packages", &DriverManifest::packages, {}, "Packages installed from the bundle's source.", check_package,
               "package names")
      .strings("dkms", &DriverManifest::dkms, {},
               "DKMS modules that must be built for the image's kernel (checked under /lib/modules/KVER).")
      .strings("modules", &DriverManifest::modules, {}, "Kernel modules loaded at boot.")
      .strings("conflicts", &DriverManifest::conflicts, {}, "Bundles that cannot share an image with this one.")
      .strings(
          "emulates", &DriverManifest::emulates, {},
          "What this bundle emulates in software for the lab (\"dcb\": PFC, ETS, the APP table, trust, ECN, storm "
          "prevention and per-priority pause counters on the lab's virtio NICs). A bundle that emulates anything is "
          "a lab stand-in: only recipes with fabric.soft_roce = true may use it, and railyard audit names it in an "
          "image.",
          check_emulated, "\"dcb\"");
  s.section("apt", &DriverManifest::apt, "kind = \"apt\": the vendor repository.")
      .string(
          "uri", &AptSource::uri, "", "Repository URL.", [](const std::string& v) { return check_http_url(v); },
          "an http(s):// URL")
      .string("suite", &AptSource::suite, "", "Distribution name, or \"./\" / \"/\" for a flat repository.")
      .strings("components", &AptSource::components, {}, "Components; empty for a flat repository.")
      .string("key_file", &AptSource::key_file, "", "Signing key shipped in drivers/ (path relative to the manifest).",
              check_relative, "a path inside drivers/")
      .string(
          "key_url", &AptSource::key_url, "",
          "Where the builder fetches the signing key (armored or binary). Read with gpg: the "
          "file must hold exactly one key, neither revoked nor expired, with key_fingerprint when set; "
          "a pinned key is kept in the cache's downloads under its fingerprint, an unpinned one fetched "
          "at every build.",
          [](const std::string& v) { return check_http_url(v); }, "an http(s):// URL")
      .string("key_fingerprint", &AptSource::key_fingerprint, "",
              "Full fingerprint the fetched key must have (40 hex digits); needed when key_url is http://.",
              check_fingerprint, "40 hex digits")
      .integer(
          "pin_priority", &AptSource::pin_priority, 0, 0, 1001,
          "apt pin priority of this repository's origin (e.g. 600 so its packages win over the distro's); 0: no pin.");
  s.section("tarball", &DriverManifest::tarball, "kind = \"tarball\": a vendor archive.")
      .string(
          "url", &TarballSource::url, "", "Archive URL.", [](const std::string& v) { return check_http_url(v); },
          "an http(s):// URL")
      .string(
          "sha256", &TarballSource::sha256, "", "sha256 of the archive.",
          [](const std::string& v) { return check_hex(v, 64); }, "64 hex digits")
      .strings("install", &TarballSource::install, {}, "Command run in the image from the unpacked archive.");
  s.section("source", &DriverManifest::source, "kind = \"source\": a DKMS module's source tree in drivers/.")
      .string("dir", &SourceTree::dir, "",
              "Directory beside the manifest holding the module's source and its dkms.conf (PACKAGE_NAME must be the "
              "bundle's one dkms entry, PACKAGE_VERSION its version); installed as /usr/src/NAME-VERSION and built by "
              "DKMS for the image's kernel.",
              check_relative, "a path inside drivers/");
  return s;
}

// The source tree and its dkms.conf agree with the manifest: DKMS installs what dkms.conf
// names, and the builder checks for exactly the manifest's module and version.
template <class At>
void validate_source(const FileSource& files, const LoadedManifest& lm, const At& at, Diagnostics& diags) {
  const DriverManifest& m = lm.manifest;
  std::string dir = m.source_dir();
  if (!files.is_directory(dir)) {
    diags.error(at("source.dir"), "source.dir '" + m.source.dir + "' is not a directory next to the manifest");
    return;
  }
  if (m.dkms.size() != 1) {
    diags.error(at("dkms"),
                "kind = \"source\" builds one DKMS module: 'dkms' must name it (its dkms.conf PACKAGE_NAME)");
    return;
  }
  if (!dkms_word(m.version))
    diags.error(at("version"), "version '" + m.version + "' becomes /usr/src/" + m.dkms[0] + "-" + m.version +
                                   "; allowed: letters, digits and . _ + ~ - (up to 64)");
  std::string conf_path = path_join(dir, "dkms.conf");
  auto conf = files.read(conf_path);
  if (!conf) {
    diags.error(at("source.dir"), conf_path + ": " + files.why_unreadable(conf_path) + " (DKMS needs it)");
    return;
  }
  auto values = dkms_conf_values(*conf);
  auto expect = [&](const std::string& key, const std::string& want, const std::string& what) {
    auto it = values.find(key);
    if (it == values.end())
      diags.error(SourcePos{conf_path, 1, 1}, key + " is missing; it must be " + what + " \"" + want + "\"");
    else if (it->second.first != want)
      diags.error(SourcePos{conf_path, static_cast<std::uint32_t>(it->second.second), 1},
                  key + " \"" + it->second.first + "\" differs from " + what + " \"" + want + "\" in " + m.path);
  };
  if (!dkms_word(m.dkms[0]))
    diags.error(at("dkms"), "DKMS module '" + m.dkms[0] + "': allowed letters, digits and . _ + ~ - (up to 64)");
  else expect("PACKAGE_NAME", m.dkms[0], "the manifest's dkms module");
  expect("PACKAGE_VERSION", m.version, "the manifest's version");
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
    diags.error(at("name"), "name '" + m.name + "' must equal the file name '" + stem +
                                "' (recipes refer to bundles by file name)");
  if (!rejected("kind")) {
    switch (m.kind) {
      case DriverKind::distro: need(!m.packages.empty(), "packages", "kind = \"distro\" needs 'packages'"); break;
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
      case DriverKind::source:
        need(!m.source.dir.empty(), "source.dir", "kind = \"source\" needs [source] dir");
        if (!m.source.dir.empty() && !rejected("source.dir")) validate_source(files, lm, at, diags);
        break;
    }
    if (m.kind != DriverKind::apt && lm.positions.count("apt"))
      diags.error(at("apt"), "[apt] is only used with kind = \"apt\"");
    if (m.kind != DriverKind::tarball && lm.positions.count("tarball"))
      diags.error(at("tarball"), "[tarball] is only used with kind = \"tarball\"");
    if (m.kind != DriverKind::source && lm.positions.count("source"))
      diags.error(at("source"), "[source] is only used with kind = \"source\"");
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

bool DriverManifest::emulates_dcb() const {
  return std::find(emulates.begin(), emulates.end(), kEmulatesDcb) != emulates.end();
}

std::string DriverManifest::source_dir() const {
  return source.dir.empty() ? "" : path_join(dir_name(path), source.dir);
}

const schema::Schema<DriverManifest>& driver_manifest_schema() {
  static const schema::Schema<DriverManifest> s = make_driver_manifest_schema();
  return s;
}

std::string to_string(DriverKind k) {
  for (auto& [w, v] : kDriverKinds)
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
  for (const char* section : {"apt", "tarball", "source"})
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
