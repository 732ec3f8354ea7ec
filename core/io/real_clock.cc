#include <thread>

#include "clock.h"

namespace railyard {

namespace {

class RealClock : public Clock {
 public:
  time_point now() override { return std::chrono::steady_clock::now(); }
  void sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
};

}  // namespace

Clock& real_clock() {
  static RealClock clock;
  return clock;
}

}  // namespace railyard
