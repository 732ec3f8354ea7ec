// The rails' LLDP neighbours: what the leaf switch port at the far end of each rail says
// of itself. Heard by the agent's own listener (lldp_listener.h) on every rail at once, from
// planning on, so that the wait overlaps apply; fakes in tests.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "lldp.h"

namespace railyard {

struct LldpHeard {
  std::optional<LldpNeighbor> neighbor;  // the latest valid LLDPDU's
  std::string invalid;  // why the last frame that was not valid LLDP was refused; "" when none was
  int frames = 0;       // LLDP frames received on the interface, valid or not
};

class LldpNeighbors {
 public:
  virtual ~LldpNeighbors() = default;
  // What `ifname` has heard, waiting until a neighbour is heard or `deadline` passes.
  virtual LldpHeard heard(const std::string& ifname, std::chrono::steady_clock::time_point deadline) = 0;
  // When listening began and how long it may last (the recipe's fabric.lldp.wait_s).
  virtual std::chrono::steady_clock::time_point deadline() const = 0;
};

}  // namespace railyard
