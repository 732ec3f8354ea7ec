#include "kernel/dry_run_ethtool.h"

#include "kernel/ethtool_native.h"

namespace railyard {

Outcome<std::uint16_t> DryRunEthtool::tunable_u16(const std::string& ifname, std::uint32_t id) {
  Outcome<std::uint16_t> now = real_.tunable_u16(ifname, id);
  if (auto it = tunables_.find({ifname, id}); now.ok() && it != tunables_.end()) now = it->second;
  return now;
}

Status DryRunEthtool::set_tunable_u16(const std::string& ifname, std::uint32_t id, std::uint16_t value) {
  log_.push_back("would set " + tunable_name(id) + " on " + ifname + ": " + std::to_string(value));
  tunables_[{ifname, id}] = value;
  return success();
}

}  // namespace railyard
