// LLDP (IEEE 802.1AB) frames from a rail's switch, parsed into what the far end advertises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

inline constexpr std::uint16_t kLldpEthertype = 0x88CC;
// How many undecoded organisationally specific TLVs a neighbour keeps: a switch sends a
// dozen kinds, while one 9,216-byte frame has room for some 1,500 made up.
inline constexpr std::size_t kLldpMaxOtherTlvs = 64;

// 802.1Qaz PFC configuration TLV (OUI 00-80-C2, subtype 0x0B).
struct LldpPfc {
  bool willing = false;
  bool mbc = false;
  int capability = 0;        // traffic classes that can have PFC at once, 0–15 (bits 3–0)
  std::uint8_t enabled = 0;  // bit p = PFC on priority p
  friend bool operator==(const LldpPfc&, const LldpPfc&) = default;
};

struct LldpVlanName {
  int vid = 0;
  std::string name;
  friend bool operator==(const LldpVlanName&, const LldpVlanName&) = default;
};

// Every string here may have come from anyone on the wire: each is rendered safe to print
// (escape_control: printable text kept, control characters and broken UTF-8 as \xNN).
struct LldpNeighbor {
  std::string source_mac;  // the frame's source MAC, "aa:bb:cc:dd:ee:ff" ("" for a bare LLDPDU)
  int chassis_id_subtype = 0;
  // MAC subtype (4) as aa:bb:cc:dd:ee:ff; network address (5) as IPv4/IPv6 text (IANA family
  // 1/2); text subtypes (1, 2, 3, 6, 7) as text; anything else as 0x-prefixed hex.
  std::string chassis_id;
  int port_id_subtype = 0;
  // As chassis_id: MAC subtype 3, network address 4, text subtypes 1, 2, 5, 7, else hex.
  std::string port_id;
  int ttl_s = 0;
  std::string port_description;  // "" when absent; port description and system name are cut
  std::string system_name;       // at 255 bytes, system description at 511, "..." marking the cut
  std::string system_description;
  std::optional<LldpPfc> pfc;
  std::optional<int> max_frame_size;     // 802.3 (OUI 00-12-0F) subtype 4
  std::optional<int> port_vlan_id;       // 802.1 subtype 1 (0: the port advertises none)
  std::vector<LldpVlanName> vlan_names;  // 802.1 subtype 3
  // Organisationally specific TLVs not decoded here, as "OUI/subtype" ("00-80-c2/9"), each once,
  // in the order they came, the first kLldpMaxOtherTlvs kinds; the TLVs of any other kind are
  // counted in other_tlvs_left_out.
  std::vector<std::string> other_tlvs;
  int other_tlvs_left_out = 0;
  friend bool operator==(const LldpNeighbor&, const LldpNeighbor&) = default;
};

// A whole Ethernet frame as an AF_PACKET socket hands it over: destination MAC, source MAC,
// ethertype 0x88CC (an 802.1Q tag before it is skipped), then the LLDPDU. Failures name the
// TLV and its byte offset in the frame.
Outcome<LldpNeighbor> parse_lldp_frame(std::span<const std::uint8_t> frame);
// The LLDPDU alone (the TLVs after the ethertype); offsets in failures count from its start.
// The first three TLVs must be chassis ID, port ID and TTL. The End TLV may be missing
// (optional in 802.1AB-2016, 8.4) and whatever follows it (Ethernet padding) is ignored.
Outcome<LldpNeighbor> parse_lldpdu(std::span<const std::uint8_t> pdu);
// An LLDPDU (TLVs only, End TLV included) advertising `n`, for tests and for the lab to
// describe what a leaf sends. It does not validate: a value longer than its TLV allows is cut.
// parse_lldpdu reads back every field but source_mac and other_tlvs_left_out.
std::vector<std::uint8_t> encode_lldpdu(const LldpNeighbor& n);

}  // namespace railyard
