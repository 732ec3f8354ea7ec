#include "join/join.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>

#include "join_gate.h"
#include "kernel/root_files.h"
#include "slurm.h"
#include "text.h"

namespace railyard {

namespace {

using json = nlohmann::ordered_json;
using Ms = std::chrono::milliseconds;

constexpr const char* kReportFile = "/var/lib/railyard/report.json";
constexpr const char* kUnitProperties = "--property=ActiveState,SubState,Result,Job,ConditionResult,NRestarts";
constexpr Ms kUnitPoll{250};
// Between starts of a join unit that failed: it may need what comes up after the node (the
// Slurm controller a configless slurmd fetches its configuration from, at a rack's power-on).
constexpr Ms kUnitRetry{5000};
// Between attempts to drain a node whose controller did not answer.
constexpr Ms kDrainRetry{2000};

// How often systemd started a unit again (its Restart=, counted in NRestarts), said the same
// way wherever the agent reports it.
std::string restarted_by_systemd(int restarts) {
  return "systemd started it again " + (restarts == 1 ? std::string("once") : std::to_string(restarts) + " times");
}

long ms_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<long>(std::chrono::duration_cast<Ms>(b - a).count());
}

// POSTs `body`, retrying with bounded backoff; every attempt is recorded in `attempts`.
bool post_with_retries(const std::string& body, const JoinSpec& join, const std::string& token, JoinEffects& fx,
                       Clock& clock, std::vector<JoinLine>& log, std::vector<PostAttempt>& attempts) {
  int delay_ms = 1000;
  for (int attempt = 0; attempt <= join.report_retries; ++attempt) {
    if (attempt > 0) {
      clock.sleep(Ms(delay_ms));
      delay_ms = std::min(delay_ms * 2, 30000);  // bounded backoff: never hold a boot for long
    }
    std::string err = fx.post(join.report_url, body, join.ca_file, token, 10000);
    attempts.push_back({attempt + 1, err});
    if (err.empty()) {
      log.push_back({JoinLine::Level::info, "report sent to " + join.report_url});
      return true;
    }
    log.push_back({JoinLine::Level::warning, "report POST attempt " + std::to_string(attempt + 1) + " failed: " + err});
  }
  log.push_back({JoinLine::Level::error, "the report was not sent to " + join.report_url + " (" +
                                             std::to_string(join.report_retries + 1) + " attempts); it is in " +
                                             kReportFile});
  return false;
}

struct UnitWait {
  std::string unit;
  std::string state;  // "active (running)", "failed (failed)", "not started"
  std::string detail;
  bool ok = false, done = false;
  long waited_ms = 0;
  int failures = 0;                           // times it failed and was started again
  int restarts = 0;                           // times systemd started it again (Restart=)
  std::optional<Clock::time_point> retry_at;  // when it is started again
};

// Starts every join unit, then waits, with one deadline for all, until each is active or
// cannot become so: skipped by a condition, stopped again, still starting at the deadline, or
// failed with no time left to start it again (a unit that fails is started again every
// kUnitRetry until the deadline). One systemctl starts them all and one asks for all of
// them at each poll: under emulation a systemctl process costs half a second of the join.
class UnitStarter {
 public:
  UnitStarter(const JoinSpec& join, JoinEffects& fx, Clock& clock)
      : join_(join),
        fx_(fx),
        clock_(clock),
        start_(clock.now()),
        deadline_(start_ + std::chrono::seconds(join.unit_wait_s)) {
    for (const auto& unit : join.units) {
      UnitWait w;
      w.unit = unit;
      units_.push_back(std::move(w));
    }
  }

  std::vector<UnitWait> run() {
    start_all();
    for (;;) {
      std::vector<UnitWait*> asking;
      bool pending = restart_failed(asking);
      if (!asking.empty()) pending = ask(asking) || pending;
      if (!pending) break;
      if (clock_.now() >= deadline_) {
        time_out();
        break;
      }
      clock_.sleep(kUnitPoll);
    }
    return units_;
  }

 private:
  void start_one(UnitWait& w) {
    if (int rc = fx_.run({"systemctl", "start", "--no-block", w.unit}, {}, nullptr); rc != 0) {
      w.state = "not started";
      w.detail = "systemctl start exited " + std::to_string(rc);
      w.done = true;
    }
  }

  void start_all() {
    if (units_.size() == 1) return start_one(units_.front());
    if (units_.empty()) return;
    std::vector<std::string> all = {"systemctl", "start", "--no-block"};
    all.insert(all.end(), join_.units.begin(), join_.units.end());
    // systemctl still starts the others when it cannot start one; each again on its own then,
    // to name the one it could not (starting an active unit again changes nothing).
    if (fx_.run(all, {}, nullptr) != 0)
      for (auto& w : units_) start_one(w);
  }

  // The units to ask about now, into `asking`: those not done, failed ones once their retry is
  // due (started again first). Whether any waits for its retry.
  bool restart_failed(std::vector<UnitWait*>& asking) {
    bool pending = false;
    for (auto& w : units_) {
      if (w.done) continue;
      if (w.retry_at) {
        if (clock_.now() < *w.retry_at) {
          pending = true;
          continue;
        }
        w.retry_at.reset();
        fx_.run({"systemctl", "reset-failed", w.unit}, {}, nullptr);
        fx_.run({"systemctl", "start", "--no-block", w.unit}, {}, nullptr);
      }
      asking.push_back(&w);
    }
    return pending;
  }

  // One systemctl show for all of `asking`; whether any is still to be waited for.
  bool ask(const std::vector<UnitWait*>& asking) {
    std::vector<std::string> show = {"systemctl", "show", kUnitProperties};
    for (const UnitWait* w : asking) show.push_back(w->unit);
    std::string out;
    int rc = fx_.run(show, {}, &out);
    // systemctl show: each unit's properties in the order asked, a blank line between.
    std::vector<std::string> blocks(1);
    for (const auto& line : split(out, '\n')) {
      if (line.empty()) {
        if (!blocks.back().empty()) blocks.emplace_back();
      } else {
        blocks.back() += line + "\n";
      }
    }
    bool pending = false;
    for (std::size_t i = 0; i < asking.size(); ++i)
      pending = judge(*asking[i], parse_unit_state(i < blocks.size() ? blocks[i] : std::string()), rc) || pending;
    return pending;
  }

  // What a unit's state means for the wait; whether it is still to be waited for.
  bool judge(UnitWait& w, const UnitState& s, int show_rc) {
    w.state = unit_state_text(s);
    w.restarts = s.restarts;
    w.done = true;
    if (show_rc != 0) w.detail = "systemctl show exited " + std::to_string(show_rc);
    else if (s.active == "active") w.ok = true;
    else if (s.active == "failed" && clock_.now() + kUnitRetry < deadline_) {
      ++w.failures;
      w.retry_at = clock_.now() + kUnitRetry;
      w.done = false;
    } else if (s.active == "failed")
      w.detail = "it failed (Result=" + s.result + ")" +
                 (w.failures ? ", " + std::to_string(w.failures + 1) + " times within " +
                                   std::to_string(join_.unit_wait_s) + " s (join.unit_wait_s; started again every " +
                                   std::to_string(kUnitRetry.count() / 1000) + " s)"
                             : "") +
                 "; see journalctl -u " + w.unit;
    else if (s.active == "inactive" && s.job.empty())
      w.detail = s.condition == "no" ? "skipped: a start condition did not hold (is " + std::string(kJoinedMarker) +
                                           " there? see systemctl status " + w.unit + ")"
                                     : "it started and stopped again (a oneshot needs RemainAfterExit=yes)";
    else w.done = false;
    if (w.done) w.waited_ms = ms_between(start_, clock_.now());
    return !w.done;
  }

  void time_out() {
    for (auto& w : units_)
      if (!w.done) {
        w.done = true;
        w.waited_ms = ms_between(start_, clock_.now());
        w.detail = "still " + w.state + " after " + std::to_string(join_.unit_wait_s) + " s (join.unit_wait_s" +
                   (w.restarts > 0 ? "; " + restarted_by_systemd(w.restarts) + "); see journalctl -u " + w.unit : ")");
      }
  }

  const JoinSpec& join_;
  JoinEffects& fx_;
  Clock& clock_;
  const Clock::time_point start_, deadline_;
  std::vector<UnitWait> units_;
};

std::vector<UnitWait> start_units(const JoinSpec& join, JoinEffects& fx, Clock& clock) {
  return UnitStarter(join, fx, clock).run();
}

std::string rooted(const std::string& root, const std::string& path) {
  return root.empty() ? path : (std::filesystem::path(root) / path.substr(1)).string();
}

SlurmFacts slurm_facts(const Report& report) {
  SlurmFacts f;
  if (report.plan.is_object() && report.plan.contains("rails") && report.plan["rails"].is_array())
    for (const auto& r : report.plan["rails"]) {
      ++f.rails;
      if (r.contains("rdma_device") && r["rdma_device"].is_string() && !r["rdma_device"].get<std::string>().empty())
        f.rdma.push_back(r["rdma_device"].get<std::string>());
    }
  if (report.inventory.is_object() && report.inventory.contains("gpus") && report.inventory["gpus"].is_array())
    f.gpus = static_cast<int>(report.inventory["gpus"].size());
  return f;
}

}  // namespace

namespace {

// One run of the Slurm steps after a self-test: the client configuration written, then a
// drain after a fail, or after a pass the registration waited for, the partition checked, the
// features set and a railyard drain resumed. Each step records what it did in `out`.
class SlurmSteps {
 public:
  SlurmSteps(const Report& report, const SlurmSpec& slurm, const std::string& root, JoinEffects& fx, Clock& clock,
             std::vector<JoinLine>& log)
      : report_(report), slurm_(slurm), root_(root), node_(report.node), fx_(fx), clock_(clock), log_(log) {
    out_.record.controller = slurm.controller;
    out_.record.node = node_;
  }

  SlurmOutcome run() {
    if (auto e = write_root_file(root_, kSlurmClientConf, slurm_client_conf(slurm_), 0644); !e.empty()) {
      say(JoinLine::Level::error, "cannot write the client configuration: " + e);
      out_.ok = false;
      out_.record.error = e;
      return out_;
    }
    env_ = {"SLURM_CONF=" + rooted(root_, kSlurmClientConf)};
    if (!report_.passed()) {
      drain_after_fail();
    } else if (wait_for_registration()) {
      check_partition();
      set_features();
      if (state_.drained) resume();
    }
    if (state_.known) out_.record.state = state_.state;
    out_.record.reason = state_.reason;
    out_.record.partitions = state_.partitions;
    return out_;
  }

 private:
  void say(JoinLine::Level level, std::string text) { log_.push_back({level, "slurm: " + std::move(text)}); }

  int act(const char* action, const std::vector<std::string>& argv) {
    int rc = fx_.run(argv, env_, nullptr);
    out_.record.actions.push_back({action, railyard::join(argv, " "), rc});
    return rc;
  }

  // The controller's view of the node, into state_; scontrol's exit status.
  int query() {
    std::string text;
    int rc = fx_.run(scontrol_show_node_argv(node_), env_, &text);
    state_ = rc == 0 ? parse_scontrol_node(text) : SlurmNodeState{};
    return rc;
  }

  void drain_after_fail() {
    if (!slurm_.drain_on_fail) {
      say(JoinLine::Level::warning, node_ + " is not drained (join.slurm.drain_on_fail = false)");
      query();
      return;
    }
    // scontrol authenticates through munged, which Debian orders after network-online.target:
    // at first boot the agent may run before it. Started here, on the drain path only (a pass
    // waits for slurmd, which comes after munge anyway).
    if (int m = fx_.run({"systemctl", "start", kMungeUnit}, {}, nullptr); m != 0)
      say(JoinLine::Level::warning, "systemctl start " + std::string(kMungeUnit) + " exited " + std::to_string(m) +
                                        ": scontrol needs a running munged to authenticate");
    // At a rack's power-on the controller, or the way to it, may come up after this node
    // fails: the drain is retried for as long as a pass would wait for registration.
    std::string reason = drain_reason(report_);
    const std::vector<std::string> drain = scontrol_drain_argv(node_, reason);
    const auto give_up = clock_.now() + std::chrono::seconds(slurm_.register_wait_s);
    int rc = 0, attempts = 0;
    for (;;) {
      rc = fx_.run(drain, env_, nullptr);
      ++attempts;
      if (rc == 0 || clock_.now() >= give_up) break;
      clock_.sleep(kDrainRetry);
    }
    out_.record.actions.push_back({"drain", railyard::join(drain, " "), rc});
    query();
    std::string tries = attempts == 1 ? "" : std::to_string(attempts) + " attempts, ";
    if (rc != 0) {
      out_.ok = false;
      say(JoinLine::Level::error, "could not drain " + node_ + " (scontrol exited " + std::to_string(rc) + ", " +
                                      tries + "within " + std::to_string(slurm_.register_wait_s) +
                                      " s (join.slurm.register_wait_s); is " + slurm_.controller +
                                      " reachable, munge running with the cluster's key?)");
    } else {
      say(JoinLine::Level::info,
          node_ + " drained: " + reason +
              (attempts == 1 ? "" : " (the controller answered at attempt " + std::to_string(attempts) + ")"));
    }
  }

  // A pass: slurmd is active; the controller sees the node once slurmd has registered.
  bool wait_for_registration() {
    const auto start = clock_.now();
    const auto deadline = start + std::chrono::seconds(slurm_.register_wait_s);
    int rc = 0;
    for (;;) {
      rc = query();
      if (state_.responding || clock_.now() >= deadline) break;
      clock_.sleep(Ms(500));
    }
    if (state_.responding) {
      out_.record.registered_ms = ms_between(start, clock_.now());
      say(JoinLine::Level::info, node_ + " registered with " + slurm_.controller + ": " + state_.state);
      return true;
    }
    out_.ok = false;
    const std::string wait = std::to_string(slurm_.register_wait_s) + " s (join.slurm.register_wait_s)";
    say(JoinLine::Level::error,
        rc != 0 ? "scontrol show node " + node_ + " exited " + std::to_string(rc) + " for " + wait + ": is " +
                      slurm_.controller + " reachable, and does its slurm.conf list " + node_ + "?" + slurmd_state()
                : node_ + " did not register with " + slurm_.controller + " within " + wait + "; the controller says " +
                      (state_.known ? state_.state : std::string("nothing")) +
                      (state_.reason.empty() ? "" : " (" + state_.reason + ")") + slurmd_state());
    return false;
  }

  // What slurmd itself did meanwhile: one that cannot fetch its configuration exits, and
  // systemd starts it again (the build's drop-in); its journal says why.
  std::string slurmd_state() {
    std::string unit_text;
    if (fx_.run({"systemctl", "show", kUnitProperties, kSlurmdUnit}, {}, &unit_text) != 0) return "";
    UnitState u = parse_unit_state(unit_text);
    return "; " + std::string(kSlurmdUnit) + " is " + unit_state_text(u) +
           (u.restarts > 0 ? ", " + restarted_by_systemd(u.restarts) : "") + " (see journalctl -u " + kSlurmdUnit + ")";
  }

  void check_partition() {
    const auto& in = state_.partitions;
    if (slurm_.partition.empty() || std::find(in.begin(), in.end(), slurm_.partition) != in.end()) return;
    out_.ok = false;
    say(JoinLine::Level::error, node_ + " is not in partition " + slurm_.partition +
                                    " (join.slurm.partition); it is in " +
                                    (in.empty() ? std::string("none") : railyard::join(in, ", ")));
  }

  void set_features() {
    std::vector<std::string> features = slurm_features(slurm_, slurm_facts(report_));
    out_.record.features = features;
    if (features.empty()) return;
    // A controller that reconfigures (a topology.conf timer, docs/topology.md) resets the
    // features to slurm.conf's: one landing between the set and this look loses them, so they
    // are looked for once and set again once when gone.
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (int f = act("features", scontrol_features_argv(node_, features)); f != 0) {
        say(JoinLine::Level::warning, "could not set the features " + railyard::join(features, ",") +
                                          " (scontrol exited " + std::to_string(f) + ")");
        return;
      }
      if (query() != 0 || has_features(features)) return;
      say(attempt == 0 ? JoinLine::Level::info : JoinLine::Level::warning,
          "the controller shows " + node_ + "'s features as " +
              (state_.features.empty() ? std::string("none") : railyard::join(state_.features, ",")) +
              " right after they were set (a reconfigure resets them to slurm.conf's)" +
              (attempt == 0 ? ": setting them again" : ""));
    }
  }

  bool has_features(const std::vector<std::string>& want) const {
    for (const auto& f : want)
      if (std::find(state_.features.begin(), state_.features.end(), f) == state_.features.end()) return false;
    return true;
  }

  // A drained node that passes: resumed when railyard drained it and the recipe says so.
  void resume() {
    if (!drained_by_railyard(state_))
      say(JoinLine::Level::warning, node_ + " stays drained: the reason, '" + state_.reason +
                                        "', is not railyard's; whoever drained it resumes it");
    else if (drained_by_sweep(state_))
      say(JoinLine::Level::info, node_ + " stays drained: the fleet sweep drained it (" + state_.reason +
                                     "); the next sweep that passes it resumes it");
    else if (!slurm_.resume_on_pass)
      say(JoinLine::Level::info, node_ + " stays drained (join.slurm.resume_on_pass = false): " + state_.reason);
    else if (int r = act("resume", scontrol_resume_argv(node_)); r != 0)
      say(JoinLine::Level::warning, "could not resume " + node_ + " (scontrol exited " + std::to_string(r) + ")");
    else
      say(JoinLine::Level::info, node_ + " resumed: the self-test that drained it (" + state_.reason + ") now passes");
    // A resumed node is NOT_RESPONDING until the controller's next ping of it comes back.
    const auto settle = clock_.now() + std::chrono::seconds(slurm_.register_wait_s);
    for (query(); !state_.responding && clock_.now() < settle; query()) clock_.sleep(Ms(500));
    if (!state_.responding)
      say(JoinLine::Level::warning,
          node_ + " does not answer the controller's pings since it was resumed: " + state_.state);
  }

  const Report& report_;
  const SlurmSpec& slurm_;
  const std::string& root_;
  const std::string node_;
  JoinEffects& fx_;
  Clock& clock_;
  std::vector<JoinLine>& log_;
  std::vector<std::string> env_;
  SlurmNodeState state_;
  SlurmOutcome out_;
};

}  // namespace

SlurmOutcome slurm_after_selftest(const Report& report, const SlurmSpec& slurm, const std::string& root,
                                  JoinEffects& fx, Clock& clock, std::vector<JoinLine>& log) {
  return SlurmSteps(report, slurm, root, fx, clock, log).run();
}

std::string unit_state_text(const UnitState& s) {
  return s.active.empty() ? "unknown" : s.active + (s.sub.empty() ? "" : " (" + s.sub + ")");
}

UnitState parse_unit_state(const std::string& show_output) {
  UnitState s;
  for (const auto& line : split(show_output, '\n')) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = trim(line.substr(eq + 1));
    if (key == "ActiveState") s.active = value;
    else if (key == "SubState") s.sub = value;
    else if (key == "Result") s.result = value;
    else if (key == "Job") s.job = value;
    else if (key == "ConditionResult") s.condition = value;
    else if (key == "NRestarts") std::from_chars(value.data(), value.data() + value.size(), s.restarts);
  }
  return s;
}

json to_json(const SlurmRecord& r) {
  json actions = json::array();
  for (const auto& a : r.actions) actions.push_back({{"action", a.action}, {"command", a.command}, {"exit", a.exit}});
  json j = {{"controller", r.controller},
            {"node", r.node},
            {"state", r.state ? json(*r.state) : json(nullptr)},
            {"reason", r.reason},
            {"partitions", r.partitions},
            {"registered_ms", r.registered_ms ? json(*r.registered_ms) : json(nullptr)},
            {"actions", actions}};
  if (r.error) j["error"] = *r.error;
  if (r.features) j["features"] = *r.features;
  return j;
}

json to_json(const JoinRecord& r) {
  json units = json::array();
  for (const auto& u : r.units)
    units.push_back(
        {{"unit", u.unit}, {"ok", u.ok}, {"state", u.state}, {"detail", u.detail}, {"waited_ms", u.waited_ms}});
  json j = {{"gate", kJoinedMarker}, {"joined", r.joined}, {"units", units}, {"on_fail", nullptr}};
  if (r.on_fail)
    j["on_fail"] = {
        {"command", r.on_fail->command}, {"exit", r.on_fail->exit}, {"failed_checks", r.on_fail->failed_checks}};
  if (r.slurm) j["slurm"] = to_json(*r.slurm);
  j["posted"] = r.posted ? json(*r.posted) : json(nullptr);
  json posts = json::array();
  for (const auto& p : r.posts)
    posts.push_back({{"attempt", p.attempt}, {"error", p.error.empty() ? json(nullptr) : json(p.error)}});
  j["posts"] = posts;
  return j;
}

namespace {

// The local copy, whole or not at all: "" or why not.
std::string write_report_file(const Report& report, const std::string& root) {
  return write_root_file(root, kReportFile, to_json(report).dump(2) + "\n", 0644);
}

}  // namespace

void write_report_before_join(Report& report, const std::string& root, JoinOutcome& out) {
  report.join = nullptr;
  if (auto e = write_report_file(report, root); !e.empty())
    out.log.push_back({JoinLine::Level::error, "cannot write the report: " + e});
  else {
    out.report_written = true;
    out.log.push_back({JoinLine::Level::info, "report written to " + std::string(kReportFile)});
  }
}

namespace {

// The gate and what stands behind it: on a pass the marker, the join units and Slurm's
// registration; on a fail the marker removed, the on_fail command and Slurm's drain.
JoinRecord join_cluster(const Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                        Clock& clock, const SlurmSpec& slurm, std::vector<JoinLine>& log) {
  auto say = [&log](JoinLine::Level level, std::string text) { log.push_back({level, std::move(text)}); };
  JoinRecord record;
  const std::filesystem::path marker =
      std::filesystem::path(root.empty() ? "/" : root) / std::string(kJoinedMarker).substr(1);
  std::error_code ec;
  if (!report.passed()) {
    // A pass earlier in this boot no longer stands.
    std::filesystem::remove(marker, ec);
    if (!join.on_fail.empty()) {
      std::vector<std::string> failed = failing_checks(report);
      std::vector<std::string> env = {"RAILYARD_FAILED_CHECKS=" + railyard::join(failed, ","),
                                      "RAILYARD_DRAIN_REASON=" + drain_reason(report), "RAILYARD_NODE=" + report.node,
                                      "RAILYARD_REPORT=" + std::string(kReportFile)};
      int rc = fx.run({"/bin/sh", "-c", join.on_fail}, env, nullptr);
      say(rc == 0 ? JoinLine::Level::info : JoinLine::Level::error,
          "on_fail command exited " + std::to_string(rc) + ": " + join.on_fail);
      record.on_fail = OnFailRecord{join.on_fail, rc, failed};
    }
    say(JoinLine::Level::error, "self-test failed: not joining; no unit started");
    if (!slurm.controller.empty()) record.slurm = slurm_after_selftest(report, slurm, root, fx, clock, log).record;
    return record;
  }
  if (auto e = write_root_file(root, kJoinedMarker, report.node + "\n", 0644); !e.empty()) {
    // The gate opens only with the marker: without it no join unit would start.
    say(JoinLine::Level::error, "cannot mark the node joined: " + e);
    return record;
  }
  bool units_ok = true;
  for (const auto& w : start_units(join, fx, clock)) {
    say(w.ok ? JoinLine::Level::info : JoinLine::Level::error, w.unit + ": " + w.state +
                                                                   (w.detail.empty() ? "" : ": " + w.detail) + " (" +
                                                                   std::to_string(w.waited_ms) + " ms)");
    record.units.push_back({w.unit, w.ok, w.state, w.detail, w.waited_ms});
    units_ok = units_ok && w.ok;
  }
  bool slurm_ok = true;
  if (units_ok && !slurm.controller.empty()) {
    SlurmOutcome s = slurm_after_selftest(report, slurm, root, fx, clock, log);
    record.slurm = s.record;
    slurm_ok = s.ok;
  }
  if (units_ok && slurm_ok) {
    record.joined = true;
    say(JoinLine::Level::info, "joined: " + std::string(kJoinedMarker));
  } else {
    // Closed again, so that nothing else gated starts; units already active stay so.
    std::filesystem::remove(marker, ec);
    say(JoinLine::Level::error,
        std::string(units_ok ? "Slurm did not take the node" : "a join unit did not become active") +
            ": the node did not join; " + kJoinedMarker + " removed");
  }
  return record;
}

}  // namespace

void join_and_post(Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                   std::string (*read_token)(const std::string& path), Clock& clock, const SlurmSpec& slurm,
                   JoinOutcome& out) {
  auto warning = [&](std::string text) { out.log.push_back({JoinLine::Level::warning, std::move(text)}); };
  JoinRecord record = join_cluster(report, join, root, fx, clock, slurm, out.log);
  out.joined = record.joined;

  if (!join.report_url.empty()) {
    std::string token = join.token_file.empty() ? "" : read_token(join.token_file);
    // A token goes into a header line: one with spaces or control characters would split it.
    if (std::any_of(token.begin(), token.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
      warning(join.token_file +
              " holds white space or control characters, which no token has; posting without a "
              "token");
      token.clear();
    }
    // The body is the report as the node keeps it, but for the POST attempts, not known yet.
    report.join = to_json(record);
    std::vector<PostAttempt> attempts;
    record.posted = post_with_retries(to_json(report).dump(2) + "\n", join, token, fx, clock, out.log, attempts);
    record.posts = std::move(attempts);
  }
  report.join = to_json(record);
  // The report once more, now whole: what joining did and what became of the POST. Written
  // last, so that it is never ahead of what happened; the copy written before joining stands
  // until then.
  if (auto e = write_report_file(report, root); !e.empty()) {
    if (out.report_written) out.log.push_back({JoinLine::Level::error, "cannot write the report: " + e});
  } else {
    out.report_written = true;
  }
  // What the node's own exporters publish: node_exporter's textfile and node-feature-discovery's
  // feature file.
  if (!join.textfile_dir.empty())
    if (auto e = write_root_file(root, join.textfile_dir + "/railyard.prom", prometheus_text(report), 0644); !e.empty())
      warning("cannot write the node_exporter textfile: " + e);
  if (!join.nfd_features.empty())
    if (auto e = write_root_file(root, join.nfd_features, nfd_features_text(report), 0644); !e.empty())
      warning("cannot write the node-feature-discovery features: " + e);
}

JoinOutcome report_and_join(Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock, const SlurmSpec& slurm) {
  JoinOutcome out;
  write_report_before_join(report, root, out);
  join_and_post(report, join, root, fx, read_token, clock, slurm, out);
  return out;
}

}  // namespace railyard
