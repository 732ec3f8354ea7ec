// The interface holding the IPv4 default route, from /proc/net/route.
#pragma once

#include <optional>
#include <string>

namespace railyard {

// Nothing under umockdev (UMOCKDEV_DIR set): the build host's routes say nothing about a fixture.
std::optional<std::string> default_route_ifname();

}  // namespace railyard
