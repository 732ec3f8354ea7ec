// The base stage's command line: mmdebstrap for Debian and Ubuntu suites, from a mirror or
// the build host's own apt sources (mirror = "host").
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "recipe.h"

namespace railyard {

// `sources` are the host's files for mirror = "host", else ignored.
Command bootstrap_command(const ImageSpec& image, const std::string& root, const std::vector<std::string>& sources,
                          long long source_date_epoch);

// The image's dpkg path filters (image.path_exclude, then image.path_include, so that an
// include wins) as dpkg.cfg lines, "path-exclude=/usr/share/doc/*"; empty without any.
std::vector<std::string> dpkg_path_filters(const ImageSpec& image);

// Where a vendor root filesystem gets them; mmdebstrap writes its own 99mmdebstrap.
inline constexpr const char* kDpkgPathFilterFile = "etc/dpkg/dpkg.cfg.d/90railyard-path-filters";

// What of `wanted` (package names, maybe with :arch, =version or /suite) dpkg's status file
// does not list as installed, in `wanted`'s order: what a vendor root filesystem lacks.
std::vector<std::string> missing_packages(const std::string& dpkg_status, const std::vector<std::string>& wanted);

}  // namespace railyard
