// Time as every wait of both programs sees it (retries, link and storage waits, pause
// samples, fetch back-off): the real clock, or a test's that moves only when slept on.
#pragma once

#include <chrono>

namespace railyard {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point now() = 0;
  virtual void sleep(std::chrono::milliseconds d) = 0;
};

// steady_clock and this thread's sleep (core/io/real_clock.cc).
Clock& real_clock();

}  // namespace railyard
