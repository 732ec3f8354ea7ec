// LLDP parsing and encoding, from the TLV layouts of IEEE 802.1AB, 802.1Q Annex D and 802.3 Clause 79.
#include "lldp.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "net.h"
#include "text.h"

namespace railyard {

namespace {

using Bytes = std::span<const std::uint8_t>;
using Oui = std::array<std::uint8_t, 3>;

enum TlvType : int {
  kEnd,
  kChassisId,
  kPortId,
  kTtl,
  kPortDescription,
  kSystemName,
  kSystemDescription,
  kOrgSpecific = 127
};

constexpr Oui kIeee8021{0x00, 0x80, 0xc2};
constexpr Oui kIeee8023{0x00, 0x12, 0x0f};
constexpr int kPortVlanId = 1, kVlanName = 3, kPfc = 0x0b;  // 802.1 subtypes
constexpr int kMaxFrameSize = 4;                            // 802.3 subtype

constexpr std::size_t kMaxTlvValue = 511;  // the header's 9-bit length
// 802.1AB allows 255 bytes of port description and system name; a longer one is cut for
// display rather than costing the whole neighbour.
constexpr std::size_t kMaxName = 255;
constexpr std::size_t kMaxVlanName = 32;
constexpr std::size_t kMaxId = 255;  // a chassis or port ID, after its subtype

constexpr const char* kMandatoryOrder = "an LLDPDU begins with chassis ID, port ID and TTL";

unsigned u16(Bytes b, std::size_t at) { return unsigned{b[at]} << 8 | b[at + 1]; }

std::array<std::uint8_t, 2> be16(int v) {
  auto u = static_cast<unsigned>(std::clamp(v, 0, 0xffff));
  return {static_cast<std::uint8_t>(u >> 8), static_cast<std::uint8_t>(u & 0xff)};
}

Bytes bytes_of(std::string_view s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

// Two lower-case hex digits per byte, `sep` between them (none when 0).
std::string hex_pairs(Bytes b, char sep) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (sep && i) out += sep;
    out += digits[b[i] >> 4];
    out += digits[b[i] & 15];
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> unhex(std::string_view s) {
  if (s.size() % 2) return std::nullopt;
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    unsigned v = 0;
    if (std::from_chars(s.data() + i, s.data() + i + 2, v, 16).ptr != s.data() + i + 2) return std::nullopt;
    out.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

// Binary values as "0x" and hex digits: unlike colon-separated hex, never mistaken for a MAC
// or an IPv6 address, so encode_lldpdu can tell them apart.
std::string hex_text(Bytes b) { return "0x" + hex_pairs(b, 0); }

// RFC 5952 text: the longest run of two or more zero groups (the first on a tie) as "::".
std::string ipv6_text(Bytes b) {
  std::array<unsigned, 8> g{};
  for (std::size_t i = 0; i < 8; ++i) g[i] = u16(b, 2 * i);
  int best = -1, best_len = 1;
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j > i ? j : i + 1;
  }
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    char buf[4];
    auto r = std::to_chars(buf, buf + sizeof buf, g[i], 16);
    out.append(buf, r.ptr);
  }
  return out;
}

// The forms ipv6_text writes, and uncompressed ones: hex groups with at most one "::".
std::optional<std::vector<std::uint8_t>> parse_ipv6(std::string_view s) {
  auto groups = [](std::string_view part, std::vector<unsigned>& out) {
    if (part.empty()) return true;
    for (const auto& f : split(part, ':')) {
      unsigned v = 0;
      auto r = std::from_chars(f.data(), f.data() + f.size(), v, 16);
      if (f.empty() || f.size() > 4 || r.ec != std::errc() || r.ptr != f.data() + f.size()) return false;
      out.push_back(v);
    }
    return true;
  };
  std::vector<unsigned> head, tail;
  const auto gap = s.find("::");
  if (gap == std::string_view::npos) {
    if (!groups(s, head) || head.size() != 8) return std::nullopt;
  } else if (!groups(s.substr(0, gap), head) || !groups(s.substr(gap + 2), tail) || head.size() + tail.size() > 7) {
    return std::nullopt;
  }
  head.resize(8 - tail.size(), 0);
  head.insert(head.end(), tail.begin(), tail.end());
  std::vector<std::uint8_t> out;
  for (unsigned v : head) {
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v & 0xff));
  }
  return out;
}

// Text from the wire, safe to print, cut at `cap` bytes with "..." marking the cut.
std::string text(Bytes b, std::size_t cap) {
  std::string_view raw(reinterpret_cast<const char*>(b.data()), std::min(b.size(), cap));
  return escape_control(raw) + (b.size() > cap ? "..." : "");
}

// 802.1AB's chassis ID subtypes (4 MAC, 5 network address) and port ID subtypes (3, 4)
// differ; the ones here carry alphanumeric strings.
int mac_subtype(bool chassis) { return chassis ? 4 : 3; }
int address_subtype(bool chassis) { return chassis ? 5 : 4; }
bool text_subtype(int s, bool chassis) {
  return chassis ? (s >= 1 && s <= 3) || s == 6 || s == 7 : s == 1 || s == 2 || s == 5 || s == 7;
}

std::string render_id(int subtype, Bytes id, bool chassis) {
  if (subtype == mac_subtype(chassis) && id.size() == 6) return hex_pairs(id, ':');
  if (subtype == address_subtype(chassis)) {  // IANA address family, then the address
    if (id.size() == 5 && id[0] == 1) return Ipv4{u16(id, 1) << 16 | u16(id, 3)}.str();
    if (id.size() == 17 && id[0] == 2) return ipv6_text(id.subspan(1));
  }
  if (text_subtype(subtype, chassis)) return text(id, kMaxTlvValue);
  return hex_text(id);
}

// render_id backwards: the ID's bytes after the subtype.
std::vector<std::uint8_t> id_bytes(int subtype, const std::string& s, bool chassis) {
  const auto raw = bytes_of(s);
  if (text_subtype(subtype, chassis)) return {raw.begin(), raw.end()};
  if (s.starts_with("0x"))
    if (auto b = unhex(std::string_view(s).substr(2)); b && !b->empty()) return *b;
  if (subtype == mac_subtype(chassis))
    if (auto mac = normalize_mac(s)) {
      std::erase(*mac, ':');
      return *unhex(*mac);
    }
  if (subtype == address_subtype(chassis)) {
    if (auto a = parse_ipv4(s))
      return {1, static_cast<std::uint8_t>(a->value >> 24), static_cast<std::uint8_t>(a->value >> 16 & 0xff),
              static_cast<std::uint8_t>(a->value >> 8 & 0xff), static_cast<std::uint8_t>(a->value & 0xff)};
    if (auto a = parse_ipv6(s)) {
      a->insert(a->begin(), 2);
      return *a;
    }
  }
  return {raw.begin(), raw.end()};
}

const char* tlv_name(int type) {
  static const char* const names[] = {"end",
                                      "chassis ID",
                                      "port ID",
                                      "TTL",
                                      "port description",
                                      "system name",
                                      "system description",
                                      "system capabilities",
                                      "management address"};
  if (type >= 0 && type <= 8) return names[type];
  return type == kOrgSpecific ? "organisationally specific" : "reserved";
}

constexpr const char* kVlanNameTlv = "802.1 VLAN name";  // the one of them that may repeat

// The organisationally specific TLVs decoded here, by name; nullptr for the others. Their
// subtypes all differ, so decode_org tells them apart by subtype alone.
const char* org_name(const Oui& oui, int subtype) {
  if (oui == kIeee8021 && subtype == kPortVlanId) return "802.1 port VLAN ID";
  if (oui == kIeee8021 && subtype == kVlanName) return kVlanNameTlv;
  if (oui == kIeee8021 && subtype == kPfc) return "802.1 PFC configuration";
  if (oui == kIeee8023 && subtype == kMaxFrameSize) return "802.3 maximum frame size";
  return nullptr;
}

// Where a TLV lies, for messages: "LLDP TLV 127 (802.1 PFC configuration) at byte 114". Made
// into text only for a failure, so that a frame of 1,500 TLVs costs no text for each.
struct TlvAt {
  int type;
  const char* name;
  std::size_t offset;
  std::string str() const {
    return "LLDP TLV " + std::to_string(type) + " (" + name + ") at byte " + std::to_string(offset);
  }
};

std::string length_of(Bytes v) { return ": length " + std::to_string(v.size()); }

// An undecoded organisationally specific TLV's kind: its OUI and subtype in one number; the
// kinds listed, sorted (at most kLldpMaxOtherTlvs of them: a binary search in 256 bytes).
using OrgKey = std::uint32_t;
using OrgKeys = std::vector<OrgKey>;

Status decode_org(Bytes v, const TlvAt& at, LldpNeighbor& n, OrgKeys& kept) {
  if (v.size() < 4) return Status::fail(at.str() + length_of(v) + ", expected at least 4 (an OUI and a subtype)");
  const Oui oui{v[0], v[1], v[2]};
  const int subtype = v[3];
  const Bytes info = v.subspan(4);
  if (!org_name(oui, subtype)) {
    // A set of what is kept, itself capped: a frame of distinct kinds costs what a frame of
    // one kind repeated does.
    const OrgKey key = OrgKey{v[0]} << 24 | OrgKey{v[1]} << 16 | OrgKey{v[2]} << 8 | OrgKey{v[3]};
    const auto place = std::lower_bound(kept.begin(), kept.end(), key);
    if (place != kept.end() && *place == key) return success();
    if (kept.size() >= kLldpMaxOtherTlvs) {
      ++n.other_tlvs_left_out;
      return success();
    }
    kept.insert(place, key);
    n.other_tlvs.push_back(hex_pairs(oui, '-') + "/" + std::to_string(subtype));
  } else if (subtype == kVlanName) {
    if (info.size() < 3)
      return Status::fail(at.str() + length_of(v) + ", expected at least 7 (a VID and a name length)");
    const std::size_t name_length = info[2];
    if (name_length > kMaxVlanName)
      return Status::fail(at.str() + ": name length " + std::to_string(name_length) + ", at most 32");
    if (info.size() != 3 + name_length)
      return Status::fail(at.str() + length_of(v) + ", but its name length " + std::to_string(name_length) +
                          " makes it " + std::to_string(7 + name_length));
    n.vlan_names.push_back({static_cast<int>(u16(info, 0)), text(info.subspan(3), kMaxVlanName)});
  } else if (v.size() != 6) {  // the rest hold 2 bytes after the OUI and subtype
    return Status::fail(at.str() + length_of(v) + ", expected 6");
  } else if (subtype == kPfc) {
    n.pfc = LldpPfc{(info[0] & 0x80) != 0, (info[0] & 0x40) != 0, info[0] & 0x0f, info[1]};
  } else if (subtype == kPortVlanId) {
    n.port_vlan_id = static_cast<int>(u16(info, 0));
  } else {
    n.max_frame_size = static_cast<int>(u16(info, 0));
  }
  return success();
}

Status decode(int type, Bytes v, const TlvAt& at, LldpNeighbor& n, OrgKeys& kept) {
  switch (type) {
    case kChassisId:
    case kPortId: {
      if (v.size() < 2 || v.size() > 256)
        return Status::fail(at.str() + length_of(v) + ", expected 2–256 (a subtype and an ID of 1–255 bytes)");
      const bool chassis = type == kChassisId;
      (chassis ? n.chassis_id_subtype : n.port_id_subtype) = v[0];
      (chassis ? n.chassis_id : n.port_id) = render_id(v[0], v.subspan(1), chassis);
      return success();
    }
    case kTtl:
      if (v.size() != 2) return Status::fail(at.str() + length_of(v) + ", expected 2");
      n.ttl_s = static_cast<int>(u16(v, 0));
      return success();
    case kPortDescription: n.port_description = text(v, kMaxName); return success();
    case kSystemName: n.system_name = text(v, kMaxName); return success();
    case kSystemDescription: n.system_description = text(v, kMaxTlvValue); return success();
    case kOrgSpecific: return decode_org(v, at, n, kept);
    default: return success();  // capabilities, management addresses, reserved types: not needed here
  }
}

// `whole` names what `pdu` lies in for messages ("frame"), whose `total` bytes the offsets
// count in, the PDU starting at `base`.
Outcome<LldpNeighbor> parse_tlvs(Bytes pdu, LldpNeighbor n, std::size_t base, std::size_t total, const char* whole) {
  using Result = Outcome<LldpNeighbor>;
  auto of_whole = [&] { return std::string("the ") + whole + "'s " + std::to_string(total) + " bytes"; };
  std::vector<std::string_view> seen;  // the single-valued TLVs met so far, by name: a handful
  OrgKeys kept;                        // the undecoded organisational TLVs listed
  int mandatory = 0;                   // how many of chassis ID, port ID, TTL have come
  std::size_t pos = 0;
  while (pos < pdu.size()) {
    if (pdu.size() - pos < 2)
      return Result::fail("LLDP TLV header at byte " + std::to_string(base + pos) + ": 1 byte left of " + of_whole() +
                          ", a header takes 2");
    const int type = pdu[pos] >> 1;
    const std::size_t length = (std::size_t{pdu[pos]} & 1) << 8 | pdu[pos + 1];
    const std::size_t left = pdu.size() - pos - 2;
    const char* org = type == kOrgSpecific && length >= 4 && left >= 4
                          ? org_name({pdu[pos + 2], pdu[pos + 3], pdu[pos + 4]}, pdu[pos + 5])
                          : nullptr;
    const TlvAt at{type, org ? org : tlv_name(type), base + pos};
    if (length > left)
      return Result::fail(at.str() + ": length " + std::to_string(length) + " runs past " + of_whole());
    const Bytes value = pdu.subspan(pos + 2, length);
    pos += 2 + length;
    if (mandatory < 3) {
      if (type != mandatory + 1)
        return Result::fail(at.str() + ": expected TLV " + std::to_string(mandatory + 1) + " (" +
                            tlv_name(mandatory + 1) + "); " + kMandatoryOrder);
      ++mandatory;
    }
    if (type == kEnd) {
      if (length != 0) return Result::fail(at.str() + ": length " + std::to_string(length) + ", expected 0");
      break;  // what follows is Ethernet padding
    }
    // Two different values for one of these would leave the far end's setting ambiguous.
    if ((type >= kChassisId && type <= kSystemDescription) || (org && org != kVlanNameTlv)) {
      if (std::find(seen.begin(), seen.end(), at.name) != seen.end())
        return Result::fail(at.str() + ": a second " + at.name + " TLV; an LLDPDU holds one");
      seen.push_back(at.name);
    }
    if (auto s = decode(type, value, at, n, kept); !s.ok()) return Result::fail(s);
  }
  if (mandatory < 3)
    return Result::fail("LLDP: " + of_whole() + " end before TLV " + std::to_string(mandatory + 1) + " (" +
                        tlv_name(mandatory + 1) + "); " + kMandatoryOrder);
  return n;
}

void put_tlv(std::vector<std::uint8_t>& out, int type, Bytes value) {
  const std::size_t length = std::min(value.size(), kMaxTlvValue);
  out.push_back(static_cast<std::uint8_t>(type << 1 | static_cast<int>(length >> 8)));
  out.push_back(static_cast<std::uint8_t>(length & 0xff));
  out.insert(out.end(), value.begin(), value.begin() + static_cast<std::ptrdiff_t>(length));
}

void put_org(std::vector<std::uint8_t>& out, const Oui& oui, int subtype, Bytes info) {
  std::vector<std::uint8_t> v(oui.begin(), oui.end());
  v.push_back(static_cast<std::uint8_t>(subtype));
  v.insert(v.end(), info.begin(), info.end());
  put_tlv(out, kOrgSpecific, v);
}

// "00-80-c2/9" as an OUI and a subtype.
std::optional<std::pair<Oui, int>> parse_org_key(std::string_view s) {
  if (s.size() < 10 || s[2] != '-' || s[5] != '-' || s[8] != '/') return std::nullopt;
  auto oui = unhex(std::string(s.substr(0, 2)) + std::string(s.substr(3, 2)) + std::string(s.substr(6, 2)));
  int subtype = -1;
  auto r = std::from_chars(s.data() + 9, s.data() + s.size(), subtype);
  if (!oui || r.ec != std::errc() || r.ptr != s.data() + s.size() || subtype < 0 || subtype > 255) return std::nullopt;
  return std::pair{Oui{(*oui)[0], (*oui)[1], (*oui)[2]}, subtype};
}

}  // namespace

Outcome<LldpNeighbor> parse_lldp_frame(std::span<const std::uint8_t> frame) {
  using Result = Outcome<LldpNeighbor>;
  const std::string size = std::to_string(frame.size());
  if (frame.size() < 14)
    return Result::fail("LLDP frame of " + size + " bytes is shorter than an Ethernet header (14 bytes)");
  std::size_t ethertype_at = 12;
  if (u16(frame, ethertype_at) == 0x8100) {
    if (frame.size() < 18)
      return Result::fail("LLDP frame of " + size + " bytes ends inside its 802.1Q tag (18 bytes)");
    ethertype_at = 16;
  }
  if (unsigned ethertype = u16(frame, ethertype_at); ethertype != kLldpEthertype)
    return Result::fail("not LLDP: ethertype " + hex(ethertype, 4));
  LldpNeighbor n;
  n.source_mac = hex_pairs(frame.subspan(6, 6), ':');
  return parse_tlvs(frame.subspan(ethertype_at + 2), std::move(n), ethertype_at + 2, frame.size(), "frame");
}

Outcome<LldpNeighbor> parse_lldpdu(std::span<const std::uint8_t> pdu) {
  return parse_tlvs(pdu, LldpNeighbor{}, 0, pdu.size(), "LLDPDU");
}

std::vector<std::uint8_t> encode_lldpdu(const LldpNeighbor& n) {
  std::vector<std::uint8_t> out;
  for (bool chassis : {true, false}) {
    const int subtype = chassis ? n.chassis_id_subtype : n.port_id_subtype;
    auto value = id_bytes(subtype, chassis ? n.chassis_id : n.port_id, chassis);
    // An ID holds at most 255 bytes, and one parsed may have grown past that: a text ID of
    // control bytes, each escaped as \xNN.
    if (value.size() > kMaxId) value.resize(kMaxId);
    value.insert(value.begin(), static_cast<std::uint8_t>(subtype));
    put_tlv(out, chassis ? kChassisId : kPortId, value);
  }
  put_tlv(out, kTtl, be16(n.ttl_s));
  if (!n.port_description.empty()) put_tlv(out, kPortDescription, bytes_of(n.port_description));
  if (!n.system_name.empty()) put_tlv(out, kSystemName, bytes_of(n.system_name));
  if (!n.system_description.empty()) put_tlv(out, kSystemDescription, bytes_of(n.system_description));
  if (n.pfc) {
    auto flags =
        static_cast<std::uint8_t>((n.pfc->willing ? 0x80 : 0) | (n.pfc->mbc ? 0x40 : 0) | (n.pfc->capability & 0x0f));
    put_org(out, kIeee8021, kPfc, std::array<std::uint8_t, 2>{flags, n.pfc->enabled});
  }
  if (n.port_vlan_id) put_org(out, kIeee8021, kPortVlanId, be16(*n.port_vlan_id));
  for (const auto& vlan : n.vlan_names) {
    const auto name = bytes_of(vlan.name).first(std::min(vlan.name.size(), kMaxVlanName));
    auto vid = be16(vlan.vid);
    std::vector<std::uint8_t> info{vid[0], vid[1], static_cast<std::uint8_t>(name.size())};
    info.insert(info.end(), name.begin(), name.end());
    put_org(out, kIeee8021, kVlanName, info);
  }
  if (n.max_frame_size) put_org(out, kIeee8023, kMaxFrameSize, be16(*n.max_frame_size));
  for (const auto& key : n.other_tlvs)
    if (auto org = parse_org_key(key)) put_org(out, org->first, org->second, {});
  put_tlv(out, kEnd, {});
  return out;
}

}  // namespace railyard
