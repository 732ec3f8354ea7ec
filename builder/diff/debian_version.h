// Debian package versions compared as dpkg compares them ([epoch:]upstream[-revision], `~`
// sorting before anything, even the end), so that `railyard diff` can tell an upgrade from
// a downgrade.
#pragma once

#include <string_view>

namespace railyard {

// <0, 0 or >0 as `a` is older than, the same as, or newer than `b` (dpkg --compare-versions).
int compare_debian_versions(std::string_view a, std::string_view b);

}  // namespace railyard
