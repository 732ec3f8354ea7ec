// Data center bridging over rtnetlink (RTM_GETDCB / RTM_SETDCB, IEEE 802.1Qaz): PFC and
// the DSCP application priority table. docs/fabric.md has the message layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

// struct ieee_pfc, less the per-priority counters.
struct IeeePfc {
  std::uint8_t pfc_cap = 0;
  std::uint8_t pfc_en = 0;
  std::uint8_t mbc = 0;
  std::uint16_t delay = 0;
};

// struct dcb_app; the DSCP selector (IEEE_8021QAZ_APP_SEL_DSCP) is 5.
struct DcbApp {
  std::uint8_t selector = 0;
  std::uint8_t priority = 0;
  std::uint16_t protocol = 0;
  friend bool operator==(const DcbApp&, const DcbApp&) = default;
};

class Dcb {
 public:
  virtual ~Dcb() = default;
  virtual Outcome<IeeePfc> pfc(const std::string& ifname) = 0;
  virtual Status set_pfc(const std::string& ifname, const IeeePfc& pfc) = 0;
  virtual Outcome<std::vector<DcbApp>> apps(const std::string& ifname) = 0;
  virtual Status add_apps(const std::string& ifname, const std::vector<DcbApp>& apps) = 0;
};

}  // namespace railyard
