// Dry-run Ethtool: reads go to the real kernel, writes are logged instead of made, and later
// reads of a tunable show the logged value over what the kernel says.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/ethtool.h"

namespace railyard {

class DryRunEthtool : public Ethtool {
 public:
  DryRunEthtool(Ethtool& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  Outcome<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t id) override;
  Status set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) override;
  Outcome<std::map<std::string, std::uint64_t>> stats(const std::string& ifname) override {
    return real_.stats(ifname);
  }

 private:
  Ethtool& real_;
  std::vector<std::string>& log_;
  std::map<std::pair<std::string, std::uint32_t>, std::uint16_t> tunables_;  // would-be values
};

}  // namespace railyard
