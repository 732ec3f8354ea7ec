// An image directory's manifest.json (schema 1) as data: written by the pack stage, read back
// and checked by `railyard audit`, `railyard pxe` and `railyard diff`, and rendered in the one
// key order the schema gives (docs/building.md), so that a reader and a writer cannot
// disagree on it. The drivers and trim stages record their parts of it in the image
// (drivers.json, trim.json) with the same renderer, and pack reads them with the same parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.h"

namespace railyard {

inline constexpr int kImageManifestSchema = 1;
inline constexpr const char* kManifestFile = "manifest.json";

struct ManifestArtifact {
  std::string path;  // relative to the image directory, normalised, never manifest.json itself
  std::string sha256;
  std::uint64_t size = 0;
};

struct ManifestPackage {
  std::string name, version, arch;
};

struct ManifestDkms {
  std::string module, version, kernel;
  std::vector<std::string> files;  // relative to the image's root
};

struct ManifestDriver {
  std::string name, version, kind;
  std::vector<std::string> packages, modules;
  std::vector<ManifestDkms> dkms;
  std::vector<std::string> emulates;  // a lab stand-in: what it emulates in software ("dcb")
};

struct ManifestTrimDir {
  std::string dir;
  std::uint64_t files = 0, bytes = 0;
};

struct ManifestStage {
  std::string name, key;
};

struct ManifestInput {
  std::string kind, name, sha256;
};

struct ImageManifest {
  int schema = kImageManifestSchema;
  std::string railyard_version;
  std::string recipe_name, recipe_sha256;
  std::int64_t source_date_epoch = 0;
  std::string distro, suite, arch;
  std::string kernel_version, kernel_package, kernel_package_version;
  std::vector<std::string> cmdline;
  std::string boot_format = "initramfs";
  std::string boot_kernel;                // an artifact path
  std::vector<std::string> boot_initrds;  // artifact paths, in the order the kernel unpacks them
  std::vector<ManifestStage> stages;
  std::vector<ManifestInput> inputs;
  std::vector<ManifestDriver> drivers;
  std::vector<ManifestPackage> packages;
  std::string trim_kernel;                // the kernel whose modules were trimmed
  std::vector<std::string> trim_dropped;  // directories under kernel/, sorted
  std::uint64_t trim_files = 0, trim_bytes = 0;
  std::vector<ManifestTrimDir> trim_dirs;  // per dropped directory
  std::vector<std::string> trim_stranded;  // modules elsewhere that needed a dropped one
  // The DKMS build tools (dkms, headers, compiler): purged after the build, or kept and why.
  std::vector<std::string> build_tools_removed, build_tools_kept;
  std::string build_tools_why_kept;
  std::vector<std::string> build_tools_sources_removed;  // "NAME VERSION": DKMS sources gone with the tools
  std::vector<ManifestArtifact> artifacts;

  const ManifestArtifact* artifact(std::string_view path) const;
};

// Errors name `path` and say what is wrong: "out/x/manifest.json:3:7: invalid JSON: …" or
// "out/x/manifest.json: packages[2].version: expected a string, found a number". Besides
// types it checks what the commands rely on: schema 1, sha256 digests, artifact paths that
// stay inside the directory and appear once, and a boot kernel and initrds among them.
// Keys it does not know are ignored (schema 1 may gain keys without a version bump).
Outcome<ImageManifest> parse_image_manifest(std::string_view text, const std::string& path);
// The file at `path` (an image directory's manifest.json), read and parsed.
Outcome<ImageManifest> read_image_manifest(const std::string& path);

// Pretty JSON with the schema's key order, ending in a newline.
std::string render_image_manifest(const ImageManifest& m);

// The stages' records of their parts, in the manifest's own form: `drivers` as an array,
// `trim` as an object. Parse errors name `path` as for the manifest.
std::string render_drivers_record(const std::vector<ManifestDriver>& drivers);
Outcome<std::vector<ManifestDriver>> parse_drivers_record(std::string_view text, const std::string& path);
std::string render_trim_record(const ImageManifest& m);
// Sets the trim_* fields of `m`.
Outcome<Done> parse_trim_record(std::string_view text, const std::string& path, ImageManifest& m);

}  // namespace railyard
