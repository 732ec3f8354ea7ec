// A Clock for tests: time moves only when something sleeps on it (or a test advances it),
// and every sleep is recorded, so that waits and back-offs are checked without waiting.
#pragma once

#include <chrono>
#include <vector>

#include "clock.h"

namespace railyard::test {

class FakeClock : public Clock {
 public:
  time_point t{};
  std::vector<std::chrono::milliseconds> sleeps;
  time_point now() override { return t; }
  void sleep(std::chrono::milliseconds d) override {
    sleeps.push_back(d);
    t += d;
  }
};

}  // namespace railyard::test
