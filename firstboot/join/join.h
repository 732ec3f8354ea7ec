// Report and join: the report written locally before anything else (the on_fail command reads
// it, and neither a join that hangs nor an unreachable report URL may lose it), the cluster
// joined only when every required check passed (the gate's marker written, then the join units
// started and waited for until active; core/join_gate.h), otherwise the on-fail command run
// with the failing checks; then the report, with what joining did, POSTed to the recipe's URL,
// and the local copy written once more, whole.
#pragma once

#include <optional>
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
  // Runs argv (no shell: a recipe's command string is given as /bin/sh -c) with `env`
  // ("NAME=value") added to the agent's environment; returns the exit status (127: could not
  // be run) and, when `out` is given, what it wrote to standard output (64 KiB at most).
  virtual int run(const std::vector<std::string>& argv, const std::vector<std::string>& env, std::string* out) = 0;
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
  bool report_written = false;  // the local copy, at least the one before joining
  std::vector<JoinLine> log;    // what was done, in order
};

// What Slurm did with the node after its self-test: the join record's "slurm" object.
struct SlurmAction {
  std::string action;  // "drain", "features", "resume"
  std::string command;
  int exit = 0;
};
struct SlurmRecord {
  std::string controller, node;
  std::optional<std::string> state;  // the controller's word for the node; none when it said nothing
  std::string reason;
  std::vector<std::string> partitions;
  std::optional<long> registered_ms;  // from slurmd active to the controller seeing the node
  std::vector<SlurmAction> actions;
  std::optional<std::string> error;                  // the client configuration could not be written
  std::optional<std::vector<std::string>> features;  // set on a pass that registered
};

// What joining did: the report's "join" object (docs/report.schema.json), turned into JSON
// where the report is written.
struct JoinUnitRecord {
  std::string unit;
  bool ok = false;
  std::string state, detail;
  long waited_ms = 0;
};
struct OnFailRecord {
  std::string command;
  int exit = 0;
  std::vector<std::string> failed_checks;
};
struct PostAttempt {
  int attempt = 0;
  std::string error;  // empty: sent
};
struct JoinRecord {
  bool joined = false;
  std::vector<JoinUnitRecord> units;
  std::optional<OnFailRecord> on_fail;
  std::optional<SlurmRecord> slurm;  // with [join.slurm] only
  std::optional<bool> posted;        // none without a report_url
  std::vector<PostAttempt> posts;
};
nlohmann::ordered_json to_json(const JoinRecord& record);
nlohmann::ordered_json to_json(const SlurmRecord& record);

// The report stage: `report` (its join still null) written to /var/lib/railyard/report.json
// under `root`, said in out.log.
void write_report_before_join(Report& report, const std::string& root, JoinOutcome& out);

// The join stage, after write_report_before_join: the gate, the units, Slurm, the on_fail
// command, the POST, then the report written once more with report.join filled, and the
// node's exporter files.
void join_and_post(Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                   std::string (*read_token)(const std::string& path), Clock& clock, const SlurmSpec& slurm,
                   JoinOutcome& out);

// Both stages, one after the other. `root` prefixes the files written (report, textfile, joined marker); `clock` waits
// between POST attempts and while the join units start. `report.join` is filled with what
// joining did (the report's "join" object, docs/report.schema.json). With a Slurm controller
// ([join.slurm]), a pass also waits for the controller to see the node, sets its features and
// resumes a railyard drain, and a fail drains the node (slurm_after_selftest).
JoinOutcome report_and_join(Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock = real_clock(),
                            const SlurmSpec& slurm = SlurmSpec{});

// Slurm after a self-test, pass or fail (report.passed()): what report_and_join does with
// [join.slurm], and what `railyard-firstboot verify` does on a regression (a drain only).
// Returns the report's "slurm" record; `ok` is false when a pass did not bring the node into
// the cluster (it never registered, or is not in join.slurm.partition) or a drain failed.
struct SlurmOutcome {
  bool ok = true;
  SlurmRecord record;
};
SlurmOutcome slurm_after_selftest(const Report& report, const SlurmSpec& slurm, const std::string& root,
                                  JoinEffects& fx, Clock& clock, std::vector<JoinLine>& log);

// A unit as `systemctl show --property=ActiveState,SubState,Result,Job,ConditionResult,NRestarts`
// prints it ("Key=value" lines; keys it does not print stay empty, NRestarts 0).
struct UnitState {
  std::string active, sub, result, job, condition;
  int restarts = 0;  // how often systemd started it again (Restart=)
};
UnitState parse_unit_state(const std::string& show_output);
// "active (running)", "activating (auto-restart)"; "unknown" when systemctl said nothing.
std::string unit_state_text(const UnitState& s);

class NativeJoinEffects : public JoinEffects {
 public:
  std::string post(const std::string& url, const std::string& body, const std::string& ca_file,
                   const std::string& bearer_token, int timeout_ms) override;  // report_post.cc
  int run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
          std::string* out) override;  // command.cc
};

}  // namespace railyard
