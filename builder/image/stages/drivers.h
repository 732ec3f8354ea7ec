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
// The pin for /etc/apt/preferences.d when the manifest pins its repository; "" otherwise.
std::string apt_pin(const DriverManifest& m);
// Where it goes: railyard-<name>.pref. apt reads only files there without an extension or
// with ".pref", so "railyard-cuda-13.0" (extension "0") would be ignored, pin and all.
std::string apt_pin_path(const DriverManifest& m);
// Where a bundle's key goes in the image; ".asc" for armored keys, which apt reads as such.
std::string keyring_path(const DriverManifest& m, bool armored);

// `dkms status` lines ("name/version, kver, arch: installed") → the built module for `kernel`.
std::vector<ManifestDkms> parse_dkms_status(const std::string& text, const std::string& kernel);

// Why apt failed, told in terms of the recipe's bundles: the bundle whose repository apt
// refused (not signed, signed by a key other than the bundle's, not found) or whose package it
// could not find, each as "FILE: bundle NAME VERSION: cause", joined by newlines. `installing`
// names the bundle whose packages were being installed ("" for apt-get update); a missing
// package no bundle lists is then that bundle's. Empty when apt's output names none of them.
std::string explain_apt_failure(const std::string& apt_output, const std::vector<DriverManifest>& bundles,
                                const std::string& installing);

// Of the .ko files under `updates` (relative paths, as in an image), those DKMS built for a
// module whose files are named `built` (the basenames in /var/lib/dkms/M/V/KVER/ARCH/module).
std::vector<std::string> dkms_module_files(const std::vector<std::string>& updates,
                                           const std::vector<std::string>& built);

}  // namespace railyard
