// PFC storms: the storm prevention tunable, and the pause counters that show a storm.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "clock.h"

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_storm(const Plan&, Kernel&, std::vector<Change>&);

// rail.N.storm_prevention: the ethtool tunable as planned.
void verify_storm_prevention(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);
// rail.N.pause_storm: the lossless priority's pause counters sampled twice, under the bound.
void verify_pause_storm(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r);

// The first sample of every port a planned rail.N.pause_storm check reads, all taken
// together: each check then waits only for what is left of the interval since its port's
// sample, and the rails share one interval where they took one each (a second per rail).
struct PauseSamples {
  struct Sample {
    Outcome<std::map<std::string, std::uint64_t>> stats;
    Clock::time_point at;
  };
  std::map<std::string, Sample> by_port;
};
PauseSamples first_pause_samples(const VerifyContext& ctx);

}  // namespace railyard
