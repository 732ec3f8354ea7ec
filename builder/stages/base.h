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

}  // namespace railyard
