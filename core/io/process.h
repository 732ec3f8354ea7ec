// Running another program: fork/exec without a shell, for both programs (the builder's
// mmdebstrap, apt and QEMU; the agent's vtysh, systemctl, NCCL's tests and the join hooks).
// One runner so that every child gets the same care: its standard input is /dev/null, it
// inherits no descriptor of ours beyond 0-2 but those it is handed, a failed exec is an error naming the program, a
// deadline kills it, and a background one can be tied to our life.
#pragma once

#include <chrono>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "outcome.h"

namespace railyard {

struct ProcessSpec {
  std::vector<std::string> argv{};  // argv[0] looked up in PATH
  // "NAME=value", each added to the caller's environment or replacing the variable there.
  std::vector<std::string> env{};
  // Standard error, and standard output unless captured, appended here (created when
  // missing); empty: both go where the caller's go.
  std::string log_path{};
  bool capture = false;  // standard output read into ProcessResult::out
  // Only the first this many bytes are kept; the rest is read and dropped, so that the child
  // never blocks on a full pipe.
  std::size_t capture_limit = std::numeric_limits<std::size_t>::max();
  // Still running then: killed (SIGKILL), status 124 as timeout(1) says. Zero: no limit.
  // The child alone is killed, not what it started: run a program, not a shell script that
  // forks, where a deadline matters.
  std::chrono::milliseconds timeout{0};
  // The child is killed when the calling thread's process ends, however it ends (a VM must
  // never outlive the run that started it).
  bool die_with_caller = false;
  // Descriptors the child inherits under the same numbers (a socket QEMU takes as fd=N);
  // every other one above 2 stays ours.
  std::vector<int> pass_fds{};
};

struct ProcessResult {
  // As a shell reports it: the exit code; 128 + N when killed by signal N; 124 when the
  // deadline killed it; 127 when it could not be run.
  int status = 127;
  std::string out;  // standard output when captured
  // Why it did not exit by itself: "vtysh: No such file or directory", "killed by signal 9",
  // "timed out after 30 s"; empty when it exited, whatever its code.
  std::string error;
  bool ok() const { return status == 0; }
  // "exit 1", or the error: how it ended, as error messages name it.
  std::string how() const { return error.empty() ? "exit " + std::to_string(status) : error; }
};

// A started child, waited for and stopped by its owner; destroying it stops it.
class Process {
 public:
  using Clock = std::chrono::steady_clock;

  // Fails, naming argv[0], when the program cannot be run. `spec.capture` and
  // `spec.timeout` belong to run_process and are refused here.
  static Outcome<std::unique_ptr<Process>> start(const ProcessSpec& spec);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Until it exits or `deadline`; true when it has exited.
  bool wait_until(Clock::time_point deadline);
  // SIGTERM, and SIGKILL when it is still there after `grace`.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
  // SIGKILL, and reaped.
  void kill();
  // Its status as ProcessResult::status says; nothing while it runs.
  std::optional<int> status() const { return status_; }
  // "exited 0", "killed by signal 9"; "" while running.
  std::string how_it_ended() const;

 private:
  friend ProcessResult run_process(const ProcessSpec& spec);
  static Outcome<std::unique_ptr<Process>> spawn(const ProcessSpec& spec, int stdout_fd);
  explicit Process(pid_t pid) : pid_(pid) {}
  void reap(bool block);
  pid_t pid_ = -1;
  std::optional<int> status_;
  bool signalled_ = false;
};

// Runs a program to its end (or its deadline) and says how it ended.
ProcessResult run_process(const ProcessSpec& spec);

// argv as a shell would need it typed, for logs and error messages.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace railyard
