// Running the programs a build needs (mmdebstrap, apt, dkms, depmod) as child processes,
// with their output appended to the build log; behind an interface so that stages' command
// lines can be tested without running anything.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/process.h"  // shell_quote
#include "outcome.h"

namespace railyard {

struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to (or replacing in) the builder's environment
  std::string what;                        // one line for people: "install debian12-inbox packages"
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Success when the command exited 0; otherwise why, with the tail of its output.
  virtual Status run(const Command& cmd) = 0;
  // Like run, returning stdout (stderr still goes to the log).
  virtual Outcome<std::string> capture(const Command& cmd) = 0;
};

// run_process (core/io/process.h); stdout and stderr appended to `log_path` (created when
// missing) under a line with the command, and over one with the time it took.
class ProcessRunner : public CommandRunner {
 public:
  explicit ProcessRunner(std::string log_path) : log_path_(std::move(log_path)) {}
  Status run(const Command& cmd) override;
  Outcome<std::string> capture(const Command& cmd) override;

 private:
  Outcome<std::string> execute(const Command& cmd, bool capture_stdout);
  std::string log_path_;
};

// Runs `argv` chrooted into `root` in a private mount namespace with /proc, /sys and /dev
// mounted (util-linux unshare): the mounts vanish with the process, even when the build is
// killed, so no bind mount can outlive a build or leak into the host.
Command in_image(const std::string& root, std::vector<std::string> argv, std::string what);

}  // namespace railyard
