// What the pack stage reads from the image for manifest.json (image/image_manifest.h, its
// model and renderer): the installed packages, and boot.ipxe.
#pragma once

#include <string>
#include <vector>

#include "image/image_manifest.h"

namespace railyard {

// Installed packages from dpkg's status file, sorted by name: the manifest's SBOM.
std::vector<ManifestPackage> installed_packages(const std::string& dpkg_status);

std::string boot_ipxe(const std::string& recipe_name, const std::string& kernel_version,
                      const std::vector<std::string>& cmdline, const std::vector<std::string>& initrds);

}  // namespace railyard
