// A running QEMU: started with its output in a log file, tied to railyard's life (it dies
// with railyard), waited for with a deadline and stopped for certain.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "outcome.h"

namespace railyard {

class VmProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // argv[0] is looked up in PATH; stdout and stderr go to `log_path` (appended).
  static Outcome<std::unique_ptr<VmProcess>> start(const std::vector<std::string>& argv, const std::string& log_path);
  ~VmProcess();
  VmProcess(const VmProcess&) = delete;
  VmProcess& operator=(const VmProcess&) = delete;

  bool running();
  // Until it exits or `deadline`; true when it has exited.
  bool wait_until(Clock::time_point deadline);
  // SIGTERM, and SIGKILL when it is still there after `grace`.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
  // "exited 0", "killed by signal 9"; "" while running.
  std::string how_it_ended() const;
  std::optional<int> exit_code() const { return exit_code_; }

 private:
  explicit VmProcess(pid_t pid) : pid_(pid) {}
  void reap(bool block);
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::optional<int> signal_;
};

}  // namespace railyard
