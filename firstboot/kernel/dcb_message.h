// The bytes of DCB rtnetlink messages (RTM_GETDCB / RTM_SETDCB): encoding requests and
// decoding replies, with no sockets, so tests can check them byte by byte.
//
// A payload is what follows struct nlmsghdr: struct dcbmsg, then attributes. Netlink is
// host-endian; attributes are 4-byte aligned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/dcb.h"
#include "outcome.h"

namespace railyard {

using Bytes = std::vector<std::uint8_t>;

// IEEE_8021QAZ_APP_SEL_DSCP: a DcbApp whose protocol is a DSCP value.
inline constexpr std::uint8_t kDcbAppSelDscp = 5;
// IEEE_8021QAZ_MAX_TCS: what pfc_cap is set to (PFC possible on all 8 priorities).
inline constexpr std::uint8_t kPfcCap = 8;

// sizeof(struct ieee_pfc), the exact length of DCB_ATTR_IEEE_PFC.
inline constexpr std::size_t kIeeePfcSize = 136;

// DCB_CMD_IEEE_GET for `ifname`: PFC, ETS and the app table come back in one reply.
Bytes encode_ieee_get(const std::string& ifname);
// DCB_CMD_IEEE_SET with DCB_ATTR_IEEE_PFC; the request/indication counters are zero (the
// kernel ignores them on SET).
Bytes encode_ieee_set_pfc(const std::string& ifname, const IeeePfc& pfc);
// DCB_CMD_IEEE_SET with DCB_ATTR_IEEE_APP_TABLE holding one DCB_ATTR_IEEE_APP per entry.
Bytes encode_ieee_set_apps(const std::string& ifname, const std::vector<DcbApp>& apps);
// DCB_CMD_IEEE_DEL with the same app table layout: removes exactly these entries.
Bytes encode_ieee_del_apps(const std::string& ifname, const std::vector<DcbApp>& apps);

// What an IEEE_GET reply holds that the agent uses.
struct IeeeState {
  std::optional<IeeePfc> pfc;  // absent when the driver has no ieee_getpfc
  std::vector<DcbApp> apps;    // the app table, in the kernel's order
};

// Decodes a DCB_CMD_IEEE_GET reply payload. Malformed input fails with EPROTO.
Outcome<IeeeState> decode_ieee_get_reply(const Bytes& payload);

// Decodes an IEEE_SET / IEEE_DEL reply: its DCB_ATTR_IEEE u8 is the driver's result as a
// negative errno cast to u8. Returns that errno as a positive number (0 = done); a reply
// without it fails with EPROTO.
Outcome<int> decode_ieee_set_reply(const Bytes& payload);

}  // namespace railyard
