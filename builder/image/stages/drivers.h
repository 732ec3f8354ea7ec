// The drivers stage's pure parts: apt source and pin files for vendor repositories, and the
// record of what each bundle put into the image.
#pragma once

#include <string>
#include <vector>

#include "driver_manifest.h"
#include "image/image_manifest.h"

namespace railyard {

// deb822 source for a bundle's repository, signed by its own key only (never apt's global
// trust): /etc/apt/sources.list.d/railyard-<name>.sources.
std::string apt_source_deb822(const DriverManifest& m, const std::string& keyring_path);
// /etc/apt/preferences.d/railyard-<name> when the manifest pins its repository; "" otherwise.
std::string apt_pin(const DriverManifest& m);
// Where a bundle's key goes in the image; ".asc" for armored keys, which apt reads as such.
std::string keyring_path(const DriverManifest& m, bool armored);

// `dkms status` lines ("name/version, kver, arch: installed") → the built module for `kernel`.
std::vector<ManifestDkms> parse_dkms_status(const std::string& text, const std::string& kernel);

}  // namespace railyard
