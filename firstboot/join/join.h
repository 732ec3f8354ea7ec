// Report and join: the report written locally (always first), POSTed to the recipe's URL,
// and the cluster joined (units started, /run/railyard/joined) only when every required
// check passed; otherwise the on-fail command runs and nothing starts.
#pragma once

#include <string>
#include <vector>

#include "clock.h"
#include "recipe.h"
#include "report.h"

namespace railyard {

// Effects of joining, behind one interface (real: libcurl and fork/exec; tests: recorded).
class JoinEffects {
 public:
  virtual ~JoinEffects() = default;
  // POST `body` (JSON) to `url`; "" on success (HTTP 2xx), else why not.
  virtual std::string post(const std::string& url, const std::string& body, const std::string& ca_file,
                           const std::string& bearer_token, int timeout_ms) = 0;
  // Runs argv (no shell) or, for a string command, `/bin/sh -c`; returns the exit status.
  virtual int run(const std::vector<std::string>& argv) = 0;
};

// One line of what joining did: the agent logs it at its level, so that a failure to send the
// report or to start a join unit is among the journal's errors.
struct JoinLine {
  enum class Level { info, warning, error };
  Level level = Level::info;
  std::string text;
};

struct JoinOutcome {
  bool joined = false;
  std::vector<JoinLine> log;  // what was done, in order
};

// `root` prefixes the files written (report, textfile, joined marker); `clock` waits
// between POST attempts.
JoinOutcome report_and_join(const Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock = real_clock());

class NativeJoinEffects : public JoinEffects {
 public:
  std::string post(const std::string& url, const std::string& body, const std::string& ca_file,
                   const std::string& bearer_token, int timeout_ms) override;  // report_post.cc
  int run(const std::vector<std::string>& argv) override;                    // command.cc
};

}  // namespace railyard
