// The peer probe's side channel: the frames a node and a reference's responder exchange
// over TCP before and after the node's RDMA WRITE across the fabric. Every frame is 64
// bytes, big-endian, starting with a magic and a version; a frame is decoded only when every
// field is in range and every unused byte is zero, so whatever a stranger sends is a clean
// error. Pure: the responder and the peer checks move the bytes.
//
//   node                                   responder
//   hello  (rail, its QP, GID, bytes)  →
//                                      ←   accept (its QP, GID, the slice's rkey, address,
//                                                  length)  or  refuse (why)
//   … RDMA WRITEs into the slice …
//   check  (length, digest)            →
//                                      ←   verdict (match, the digest of what it holds)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "outcome.h"

namespace railyard {

inline constexpr std::size_t kProbeFrameBytes = 64;
inline constexpr std::uint16_t kProbeVersion = 1;

using ProbeGid = std::array<std::uint8_t, 16>;

// One end of an RC queue pair as the other needs it: QP number and first PSN (24 bits each,
// as InfiniBand has them) and the GID its packets come from.
struct ProbeQp {
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  ProbeGid gid{};
};

struct ProbeHello {
  std::uint16_t rail = 0;  // the rail's index in the node's plan: which of the responder's rails it means
  std::uint16_t mtu = 0;   // the path MTU the node's QP uses: 256, 512, 1024, 2048 or 4096
  ProbeQp qp;
  std::uint32_t bytes = 0;  // how much the node will write, at least 1
};

struct ProbeAccept {
  ProbeQp qp;
  std::uint32_t rkey = 0;
  std::uint32_t length = 0;  // the slice's length: as much as the hello asked
  std::uint64_t address = 0;
};

enum class ProbeRefusal : std::uint16_t {
  busy = 1,             // as many peers as the responder serves at once
  not_a_rail_peer = 2,  // the connection came from outside the rail's subnet or the fabric's prefixes
  bad_request = 3,      // not a hello, or one out of range
  too_large = 4,        // more bytes than a slice holds
  no_such_rail = 5,     // the responder has no such rail, or none on the address connected to
  internal = 6,         // the responder could not set up its end
};

struct ProbeRefuse {
  ProbeRefusal why = ProbeRefusal::bad_request;
};

struct ProbeCheck {
  std::uint32_t length = 0;  // the bytes written, from the slice's start
  std::uint64_t digest = 0;  // of what the node wrote
};

struct ProbeVerdict {
  bool match = false;
  std::uint64_t digest = 0;  // of what the responder holds
};

using ProbeFrame = std::variant<ProbeHello, ProbeAccept, ProbeRefuse, ProbeCheck, ProbeVerdict>;
using ProbeBytes = std::array<std::uint8_t, kProbeFrameBytes>;

ProbeBytes encode_probe_frame(const ProbeFrame& frame);

// Exactly kProbeFrameBytes; anything else, or a frame out of range, fails with what is wrong.
Outcome<ProbeFrame> decode_probe_frame(std::span<const std::uint8_t> bytes);

// "busy: the responder serves as many peers as it may at once": for the node's check detail.
std::string probe_refusal_text(ProbeRefusal why);

}  // namespace railyard
