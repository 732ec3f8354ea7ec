// The reference's side of the peer probe (core/probe_protocol.h): on every rail, a TCP side
// channel on the rail's address through which a node sets up an RC queue pair to a slice of
// registered memory, RDMA-writes into it, and asks whether the slice holds what it wrote.
//
// It is an attack surface on the fabric, so it is bounded:
//   - connections only from the rail's own network (its subnet, or the routed fabric's
//     prefixes); any other gets a refusal and is closed;
//   - at most `max_peers` at once, one slice each, registered once at start; one more gets
//     `busy`, so a flood costs the responder an accept and a close per connection;
//   - each peer's whole exchange within `peer_time`, whatever it sends or does not send;
//   - a frame out of range is a refusal; nothing a peer sends is written anywhere but into
//     its own slice, by its own queue pair, which is destroyed when the peer is done.
// One thread, one poll(2) loop: no peer can hold up another.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "net.h"
#include "node_inventory.h"
#include "outcome.h"
#include "probe_protocol.h"

namespace railyard {

// The digest both ends compare: XXH3-64 of the bytes.
std::uint64_t probe_digest(std::span<const std::uint8_t> bytes);

// The RDMA side of the slices: ibverbs on a reference (probe/ibverbs_slices.h), memory in tests.
class ProbeSlices {
 public:
  virtual ~ProbeSlices() = default;
  virtual std::size_t count() const = 0;        // how many peers may be served at once
  virtual std::size_t slice_bytes() const = 0;  // the most one peer may write
  // A queue pair on `rail`'s device, connected to the hello's, writing into `slice`: the accept
  // that tells the peer where.
  virtual Outcome<ProbeAccept> open(std::size_t rail, std::size_t slice, const ProbeHello& hello) = 0;
  // What `slice` holds in its first `length` bytes.
  virtual std::span<const std::uint8_t> contents(std::size_t slice, std::size_t length) = 0;
  // The slice's queue pair destroyed (its peer can write no more) and the slice zeroed.
  virtual void close(std::size_t slice) = 0;
};

struct ResponderRail {
  std::uint16_t index = 0;  // the rail's index in the plan: what a hello names
  Ipv4 address;             // the address listened on
  std::vector<Cidr> peers;  // where a connection may come from
};

// The rails a reference serves: each of its rail addresses, answered only from that rail's
// network (its subnet on layer-2 rails, the shared subnet, or the fabric's prefixes on routed
// rails). A rail without an address is left out.
std::vector<ResponderRail> responder_rails(const Recipe& recipe, const NodeEntry& self);

struct ResponderLimits {
  std::chrono::milliseconds peer_time{10000};
};

struct ResponderCounts {
  int verified = 0;    // a peer's write held what it wrote
  int mismatched = 0;  // it did not
  int busy = 0;
  int outsiders = 0;  // connections from outside the rail's network
  int refused = 0;    // a frame out of range, a rail it does not serve, too many bytes
  int timed_out = 0;
  int failed = 0;  // the responder could not set up its end
};

class Responder {
 public:
  Responder(std::vector<ResponderRail> rails, std::uint16_t port, ResponderLimits limits, ProbeSlices& slices);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // One listening socket per rail, on the rail's address.
  Status listen();
  // The port a rail's socket is bound to (the one asked for, or the kernel's pick for 0).
  std::uint16_t port(std::size_t rail) const;
  // Serves until `stop_fd` is readable (the agent's SIGTERM handler writes to it).
  Status serve(int stop_fd);
  const ResponderCounts& counts() const { return counts_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Peer {
    int fd = -1;
    std::size_t rail = 0;
    std::string who;  // "198.18.0.12:51234"
    Clock::time_point deadline;
    std::array<std::uint8_t, kProbeFrameBytes> frame{};
    std::size_t got = 0;
    std::optional<std::size_t> slice;
    std::uint32_t length = 0;  // what the slice was opened for
  };

  void accept_on(std::size_t rail);
  // Reads what the peer sent; false when it is done with (closed, refused, answered).
  bool read_from(Peer& p);
  bool answer(Peer& p, const ProbeFrame& frame);
  void refuse(int fd, ProbeRefusal why);
  void drop(Peer& p);

  std::vector<ResponderRail> rails_;
  std::uint16_t port_;
  ResponderLimits limits_;
  ProbeSlices& slices_;
  std::vector<int> listeners_;
  std::vector<std::uint16_t> ports_;
  std::vector<Peer> peers_;
  std::vector<bool> slice_taken_;
  ResponderCounts counts_;
};

}  // namespace railyard
