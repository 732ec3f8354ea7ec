// What a rail's LLDP frames add up to: its neighbours, the frames counted, a flood's rate.
#include "kernel/lldp_neighbors.h"

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

// 802.1AB's MSAP identifier: the chassis ID and port ID that name one neighbour.
bool same_neighbour(const LldpNeighbor& a, const LldpNeighbor& b) {
  return a.chassis_id_subtype == b.chassis_id_subtype && a.chassis_id == b.chassis_id &&
         a.port_id_subtype == b.port_id_subtype && a.port_id == b.port_id;
}

}  // namespace

void add_frame(LldpHeard& h, Outcome<LldpNeighbor> frame) {
  ++h.frames;
  if (!frame.ok()) {
    h.invalid = frame.error();
    return;
  }
  if (!h.neighbor || same_neighbour(*h.neighbor, *frame)) {
    h.neighbor = std::move(*frame);
    return;
  }
  auto other = std::find_if(h.others.begin(), h.others.end(), [&](const auto& o) { return same_neighbour(o, *frame); });
  if (other != h.others.end()) *other = std::move(*frame);
  else if (h.others.size() < kLldpMaxOthers) h.others.push_back(std::move(*frame));
}

void add_second(LldpHeard& h, std::int64_t came, std::int64_t dropped, std::chrono::nanoseconds elapsed) {
  h.frames += dropped;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  if (seconds <= 0) return;
  const double per_second = static_cast<double>(came) / seconds;
  if (per_second > kLldpFramesPerSecond)
    h.flood_per_s = std::max(h.flood_per_s, static_cast<std::int64_t>(std::llround(per_second)));
}

}  // namespace railyard
