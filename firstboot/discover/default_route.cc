#include "default_route.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace railyard {

std::optional<std::string> default_route_ifname() {
  if (std::getenv("UMOCKDEV_DIR")) return std::nullopt;
  std::ifstream in("/proc/net/route");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string iface, destination, gateway, flags, refcnt, use, metric, mask;
    if (!(fields >> iface >> destination >> gateway >> flags >> refcnt >> use >> metric >> mask)) continue;
    if (destination == "00000000" && mask == "00000000") return iface;
  }
  return std::nullopt;
}

}  // namespace railyard
