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

// What of `wanted` (package names, maybe with :arch, =version or /suite) dpkg's status file
// does not list as installed, in `wanted`'s order: what a vendor root filesystem lacks.
std::vector<std::string> missing_packages(const std::string& dpkg_status, const std::vector<std::string>& wanted);

}  // namespace railyard
