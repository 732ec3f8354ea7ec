// What changed between two images, from their manifests: the data `railyard diff` prints as
// text or JSON. Pure: manifests in, differences out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "image/image_manifest.h"

namespace railyard {

enum class ChangeKind { added, removed, upgraded, downgraded, changed };
std::string to_string(ChangeKind k);

// A scalar that differs: "recipe.sha256", "kernel.version", "image.suite", …
struct FieldChange {
  std::string key, old_value, new_value;
};

struct ListChange {
  std::vector<std::string> added, removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

// A package, driver bundle or DKMS module on one side or both; `old_version` is empty when
// added, `new_version` when removed.
struct VersionChange {
  std::string name;
  ChangeKind kind = ChangeKind::changed;
  std::string old_version, new_version;
  std::string detail;  // DKMS: the kernels; drivers: the release names when they differ
};

struct DriverChange {
  VersionChange version;  // name is the bundle's family ("doca-ofed" for doca-ofed-2.10.0)
  ListChange packages, modules;
};

struct ArtifactChange {
  std::string path;
  ChangeKind kind = ChangeKind::changed;
  std::optional<ManifestArtifact> old_artifact, new_artifact;
};

struct ManifestDiff {
  std::vector<FieldChange> fields;
  ListChange cmdline;
  std::vector<VersionChange> packages;
  std::vector<DriverChange> drivers;
  std::vector<VersionChange> dkms;
  ListChange trim_dropped;
  std::optional<FieldChange> trim_files, trim_bytes;
  std::vector<FieldChange> stages;  // stage keys that changed (key = stage name)
  std::vector<FieldChange> inputs;  // input digests that changed (key = "kind name")
  std::vector<ArtifactChange> artifacts;
  bool empty() const;
};

ManifestDiff diff_manifests(const ImageManifest& old_m, const ImageManifest& new_m);

// The text `railyard diff` prints: one section per kind of change, "no differences" when
// there are none.
std::string render_diff_text(const ManifestDiff& d);
// The same as one JSON object (`--json`), with "differences": true|false.
std::string render_diff_json(const ManifestDiff& d, const std::string& old_path, const std::string& new_path);

// A driver bundle's family: its name without a trailing "-VERSION" (doca-ofed-2.10.0 with
// version 2.10.0 → doca-ofed), so that a new release pairs with the old one.
std::string driver_family(const std::string& name, const std::string& version);

}  // namespace railyard
