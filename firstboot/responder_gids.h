// What a responder serves each rail with: the rail address's RoCE v2 GID and its RDMA device
// (the reference's `responder` and the sweep's worker both serve).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "probe/ibverbs_slices.h"
#include "probe/responder.h"

namespace railyard {

// Each rail's address as an RDMA device's RoCE v2 GID: the responder's end of the queue
// pairs. A GID follows its address by a moment, so discovery is retried for `wait`; the rails
// still without one are named in `missing`.
std::vector<SliceRail> responder_gids(const std::vector<ResponderRail>& rails, std::chrono::seconds wait,
                                      std::vector<std::string>& missing);

}  // namespace railyard
