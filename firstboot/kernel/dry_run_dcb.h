// Dry-run Dcb: reads go to the real kernel, writes are logged instead of made.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/dcb.h"

namespace railyard {

// Later reads show the logged writes over what the kernel says, so an applier's
// read-back after a write agrees with it and reports "changed" (would be) as in a real run.
class DryRunDcb : public Dcb {
 public:
  DryRunDcb(Dcb& real, std::vector<std::string>& log) : real_(real), log_(log) {}
  Outcome<IeeePfc> pfc(const std::string& ifname) override;
  Status set_pfc(const std::string& ifname, const IeeePfc& pfc) override;
  Outcome<std::vector<DcbApp>> apps(const std::string& ifname) override;
  Status add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) override;

 private:
  Dcb& real_;
  std::vector<std::string>& log_;
  std::map<std::string, IeeePfc> pfc_;                // would-be PFC per interface
  std::map<std::string, std::vector<DcbApp>> added_;  // would-be app entries per interface
};

}  // namespace railyard
