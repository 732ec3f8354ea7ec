// ethtool tunables through ioctl(SIOCETHTOOL): the host's PFC storm prevention timeout.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "outcome.h"

namespace railyard {

inline constexpr std::uint32_t kEthtoolPfcPreventionTout = 3;  // ETHTOOL_PFC_PREVENTION_TOUT

class Ethtool {
 public:
  virtual ~Ethtool() = default;
  virtual Outcome<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t id) = 0;
  virtual Status set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) = 0;
  // The driver's statistics (ETHTOOL_GSTATS) by name, e.g. "rx_prio3_pause". Read-only:
  // dry runs and fakes pass it through.
  virtual Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) = 0;
};

}  // namespace railyard
