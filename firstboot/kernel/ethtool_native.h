// Ethtool on the running kernel: ioctl(SIOCETHTOOL) on an AF_INET datagram socket.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "kernel/ethtool.h"

namespace railyard {

// ethtool's name for a tunable id ("pfc-prevention-tout"), for messages.
std::string tunable_name(std::uint32_t id);

// Errors carry the kernel's errno (EOPNOTSUPP for a driver without tunables, ENODEV for no
// such device) and say which interface and operation, e.g.
// "ens1f0np0: ETHTOOL_STUNABLE pfc-prevention-tout: Operation not supported".
class NativeEthtool : public Ethtool {
 public:
  Outcome<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t id) override;
  Status set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) override;
  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) override;  // ethtool_stats.cc
};

}  // namespace railyard
