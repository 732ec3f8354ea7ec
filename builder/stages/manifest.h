// manifest.json: what an image is made of (recipe, inputs, kernel, drivers, every package as
// an SBOM) and every artifact's sha256 and size. `railyard diff` compares two of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railyard {

inline constexpr int kManifestSchema = 1;

struct PackageVersion {
  std::string name, version, arch;
};
// Installed packages from dpkg's status file, sorted by name.
std::vector<PackageVersion> installed_packages(const std::string& dpkg_status);

struct Artifact {
  std::string path;  // relative to the image directory
  std::string sha256;
  std::uint64_t size = 0;
};

std::string boot_ipxe(const std::string& recipe_name, const std::string& kernel_version,
                      const std::vector<std::string>& cmdline, const std::vector<std::string>& initrds);

}  // namespace railyard
