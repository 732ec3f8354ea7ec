// The rails' LLDP neighbours: what the leaf switch port at the far end of each rail says
// of itself. Heard by the agent's own listener (lldp_listener.h) on every rail at once, from
// planning on, so that the wait overlaps apply; fakes in tests.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lldp.h"

namespace railyard {

// A neighbour sends an LLDPDU every 30 s, every second at fastest (802.1AB's fast start): more
// frames a second than this on one interface is a flood, and no more than this many a second
// are read and parsed there.
inline constexpr int kLldpFramesPerSecond = 50;
// The neighbours kept besides the first one heard on an interface.
inline constexpr std::size_t kLldpMaxOthers = 3;

struct LldpHeard {
  // The first neighbour heard, as its latest valid LLDPDU says: a neighbour is one chassis ID
  // and port ID (802.1AB's MSAP identifier), and another one never takes its place.
  std::optional<LldpNeighbor> neighbor;
  std::string invalid;      // why the last frame that was not valid LLDP was refused; "" when none was
  std::int64_t frames = 0;  // LLDP frames that reached the interface, valid or not, read or dropped
  // Neighbours heard besides `neighbor`, each as its latest LLDPDU says, the first
  // kLldpMaxOthers: a hub, a loop or a spoofer on a link that must reach one switch port.
  std::vector<LldpNeighbor> others;
  // The most LLDP frames a second that came, once more than kLldpFramesPerSecond did; 0 otherwise.
  std::int64_t flood_per_s = 0;
};

// One LLDP frame read on an interface, valid or not, added to what it heard: a neighbour
// heard again is updated, another one kept beside the first.
void add_frame(LldpHeard& h, Outcome<LldpNeighbor> frame);
// One second (about) of an interface, as the kernel counted it: `came` frames arrived in
// `elapsed`, `dropped` of them unread (a flood, past what the socket's buffer holds).
void add_second(LldpHeard& h, std::int64_t came, std::int64_t dropped, std::chrono::nanoseconds elapsed);

class LldpNeighbors {
 public:
  virtual ~LldpNeighbors() = default;
  // What `ifname` has heard, waiting until a neighbour is heard or `deadline` passes.
  virtual LldpHeard heard(const std::string& ifname, std::chrono::steady_clock::time_point deadline) = 0;
  // When listening began and how long it may last (the recipe's fabric.lldp.wait_s).
  virtual std::chrono::steady_clock::time_point deadline() const = 0;
};

}  // namespace railyard
