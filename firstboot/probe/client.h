// The node's end of the peer probe (core/probe_protocol.h): from a rail's address to a
// reference's responder on the same rail, a hello, the RDMA WRITEs into the slice it grants,
// and the check of what arrived. The TCP side is here; the RDMA side is a ProbeWriter.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "net.h"
#include "outcome.h"
#include "probe_protocol.h"

namespace railyard {

// What the writes measured.
struct ProbeTransfer {
  double gbps = 0;        // the timed transfer of the whole buffer
  double latency_us = 0;  // median completion time of a small signalled WRITE: one round trip
};

// The node's RDMA side: ibverbs on a node (probe/ibverbs_writer.h), memory in tests.
class ProbeWriter {
 public:
  virtual ~ProbeWriter() = default;
  // A queue pair and a registered buffer of `bytes`, filled with a pattern: the hello's end.
  virtual Outcome<ProbeQp> prepare(std::uint32_t bytes) = 0;
  // The queue pair connected to the responder's, then the buffer written into its slice.
  virtual Outcome<ProbeTransfer> write(const ProbeAccept& accept) = 0;
  // What the buffer holds: what was meant to arrive.
  virtual std::span<const std::uint8_t> buffer() const = 0;
};

struct ProbeTarget {
  Ipv4 local;  // the rail's address: the side channel leaves by the rail, as the writes do
  Ipv4 peer;   // the reference's address on the rail
  std::uint16_t port = 0;
  std::uint16_t rail = 0;  // the rail's index, as the responder knows it
  std::uint16_t mtu = 1024;
  std::uint32_t bytes = 0;
  std::chrono::milliseconds timeout{10000};  // the whole exchange, set-up to verdict
};

struct ProbeOutcome {
  std::optional<ProbeRefusal> refused;  // the responder said no: why
  bool match = false;                   // the slice held what was written
  ProbeTransfer transfer;
};

// Fails when the exchange could not be had at all: no answer, a connection refused or cut, a
// frame the responder should not have sent, the writes failed. A refusal or a mismatch is an
// outcome, said in it.
Outcome<ProbeOutcome> probe_peer(const ProbeTarget& target, ProbeWriter& writer);

}  // namespace railyard
