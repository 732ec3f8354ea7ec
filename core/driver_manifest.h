// Driver bundle manifests (drivers/<bundle>.toml): one per driver release.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "schema.h"
#include "source.h"

namespace railyard {

enum class DriverKind { distro, apt, tarball };

struct AptSource {
  std::string uri;
  std::string suite;
  std::vector<std::string> components;
  std::string key_file;
  std::string key_url;
  std::string key_fingerprint;
  int pin_priority = 0;
};

struct TarballSource {
  std::string url;
  std::string sha256;
  std::vector<std::string> install;
};

struct DriverManifest {
  int schema = 1;
  std::string name;
  std::string version;
  std::string description;
  DriverKind kind = DriverKind::distro;
  std::vector<std::string> suites;
  std::vector<std::string> packages;
  std::vector<std::string> dkms;
  std::vector<std::string> modules;
  std::vector<std::string> conflicts;
  AptSource apt;
  TarballSource tarball;

  std::string path;  // where it was read from
  bool supports(const std::string& distro, const std::string& suite) const;
};

const schema::Schema<DriverManifest>& driver_manifest_schema();
std::string to_string(DriverKind k);

struct LoadedManifest {
  DriverManifest manifest;
  schema::Positions positions;
};

// Parses and validates one manifest; nothing when it has errors (all reported in `diags`).
std::optional<LoadedManifest> load_driver_manifest(const FileSource& files, const std::string& path,
                                                   Diagnostics& diags);
std::optional<LoadedManifest> load_driver_manifest(const FileSource& files, const std::string& path,
                                                   const toml::table& table, Diagnostics& diags);

}  // namespace railyard
