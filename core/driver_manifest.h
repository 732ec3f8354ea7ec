// Driver bundle manifests (drivers/<bundle>.toml): one per driver release.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "schema.h"
#include "source.h"

namespace railyard {

enum class DriverKind { distro, apt, tarball, source };

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

// A DKMS module whose source ships beside the manifest (drivers/<dir>/ with its dkms.conf).
struct SourceTree {
  std::string dir;
};

// What a lab stand-in emulates in software; such a bundle never belongs in a production image.
inline constexpr const char* kEmulatesDcb = "dcb";

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
  std::vector<std::string> emulates;
  AptSource apt;
  TarballSource tarball;
  SourceTree source;

  std::string path;  // where it was read from
  bool supports(const std::string& distro, const std::string& suite) const;
  bool lab_stand_in() const { return !emulates.empty(); }
  bool emulates_dcb() const;
  // kind = "source": the source directory, beside the manifest.
  std::string source_dir() const;
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
