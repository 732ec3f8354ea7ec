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
std::vector<UnitWait> start_units(const JoinSpec& join, JoinEffects& fx, Clock& clock) {
  std::vector<UnitWait> units;
  const auto start = clock.now();
  for (const auto& unit : join.units) {
    UnitWait w;
    w.unit = unit;
    units.push_back(std::move(w));
  }
  auto start_one = [&fx](UnitWait& w) {
    if (int rc = fx.run({"systemctl", "start", "--no-block", w.unit}, {}, nullptr); rc != 0) {
      w.state = "not started";
      w.detail = "systemctl start exited " + std::to_string(rc);
      w.done = true;
    }
  };
  if (units.size() == 1) {
    start_one(units.front());
  } else if (!units.empty()) {
    std::vector<std::string> all = {"systemctl", "start", "--no-block"};
    all.insert(all.end(), join.units.begin(), join.units.end());
    // systemctl still starts the others when it cannot start one; each again on its own then,
    // to name the one it could not (starting an active unit again changes nothing).
    if (fx.run(all, {}, nullptr) != 0)
      for (auto& w : units) start_one(w);
  }
  const auto deadline = start + std::chrono::seconds(join.unit_wait_s);
  for (;;) {
    bool pending = false;
    std::vector<UnitWait*> asking;
    for (auto& w : units) {
      if (w.done) continue;
      if (w.retry_at) {
        if (clock.now() < *w.retry_at) {
          pending = true;
          continue;
        }
        w.retry_at.reset();
        fx.run({"systemctl", "reset-failed", w.unit}, {}, nullptr);
        fx.run({"systemctl", "start", "--no-block", w.unit}, {}, nullptr);
      }
      asking.push_back(&w);
    }
    if (!asking.empty()) {
      std::vector<std::string> show = {"systemctl", "show", kUnitProperties};
      for (const UnitWait* w : asking) show.push_back(w->unit);
      std::string out;
      int rc = fx.run(show, {}, &out);
      // systemctl show: each unit's properties in the order asked, a blank line between.
      std::vector<std::string> blocks(1);
      for (const auto& line : split(out, '\n')) {
        if (line.empty()) {
          if (!blocks.back().empty()) blocks.emplace_back();
        } else {
          blocks.back() += line + "\n";
        }
      }
      for (std::size_t i = 0; i < asking.size(); ++i) {
        UnitWait& w = *asking[i];
        UnitState s = parse_unit_state(i < blocks.size() ? blocks[i] : std::string());
        w.state = unit_state_text(s);
        w.restarts = s.restarts;
        w.done = true;
        if (rc != 0) w.detail = "systemctl show exited " + std::to_string(rc);
        else if (s.active == "active") w.ok = true;
        else if (s.active == "failed" && clock.now() + kUnitRetry < deadline) {
          ++w.failures;
          w.retry_at = clock.now() + kUnitRetry;
          w.done = false;
          pending = true;
        } else if (s.active == "failed")
          w.detail = "it failed (Result=" + s.result + ")" +
                     (w.failures ? ", " + std::to_string(w.failures + 1) + " times within " +
                                       std::to_string(join.unit_wait_s) + " s (join.unit_wait_s; started again every " +
                                       std::to_string(kUnitRetry.count() / 1000) + " s)"
                                 : "") +
                     "; see journalctl -u " + w.unit;
        else if (s.active == "inactive" && s.job.empty())
          w.detail = s.condition == "no" ? "skipped: a start condition did not hold (is " + std::string(kJoinedMarker) +
                                               " there? see systemctl status " + w.unit + ")"
                                         : "it started and stopped again (a oneshot needs RemainAfterExit=yes)";
        else {
          w.done = false;
          pending = true;
        }
        if (w.done) w.waited_ms = ms_between(start, clock.now());
      }
    }
    if (!pending) break;
    if (clock.now() >= deadline) {
      for (auto& w : units)
        if (!w.done) {
          w.done = true;
          w.waited_ms = ms_between(start, clock.now());
          w.detail =
              "still " + w.state + " after " + std::to_string(join.unit_wait_s) + " s (join.unit_wait_s" +
              (w.restarts > 0 ? "; " + restarted_by_systemd(w.restarts) + "); see journalctl -u " + w.unit : ")");
        }
      break;
    }
    clock.sleep(kUnitPoll);
  }
  return units;
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

SlurmOutcome slurm_after_selftest(const Report& report, const SlurmSpec& slurm, const std::string& root,
                                  JoinEffects& fx, Clock& clock, std::vector<JoinLine>& log) {
  SlurmOutcome out;
  const std::string& node = report.node;
  out.record.controller = slurm.controller;
  out.record.node = node;
  auto say = [&log](JoinLine::Level level, std::string text) { log.push_back({level, "slurm: " + std::move(text)}); };
  if (auto e = write_root_file(root, kSlurmClientConf, slurm_client_conf(slurm), 0644); !e.empty()) {
    say(JoinLine::Level::error, "cannot write the client configuration: " + e);
    out.ok = false;
    out.record.error = e;
    return out;
  }
  const std::vector<std::string> env = {"SLURM_CONF=" + rooted(root, kSlurmClientConf)};
  auto act = [&](const char* action, const std::vector<std::string>& argv) {
    int rc = fx.run(argv, env, nullptr);
    out.record.actions.push_back({action, railyard::join(argv, " "), rc});
    return rc;
  };
  SlurmNodeState state;
  auto query = [&] {
    std::string text;
    int rc = fx.run(scontrol_show_node_argv(node), env, &text);
    state = rc == 0 ? parse_scontrol_node(text) : SlurmNodeState{};
    return rc;
  };
  auto finish = [&] {
    if (state.known) out.record.state = state.state;
    out.record.reason = state.reason;
    out.record.partitions = state.partitions;
    return out;
  };

  if (!report.passed()) {
    if (!slurm.drain_on_fail) {
      say(JoinLine::Level::warning, node + " is not drained (join.slurm.drain_on_fail = false)");
      query();
      return finish();
    }
    // scontrol authenticates through munged, which Debian orders after network-online.target:
    // at first boot the agent may run before it. Started here, on the drain path only (a pass
    // waits for slurmd, which comes after munge anyway).
    if (int m = fx.run({"systemctl", "start", kMungeUnit}, {}, nullptr); m != 0)
      say(JoinLine::Level::warning, "systemctl start " + std::string(kMungeUnit) + " exited " + std::to_string(m) +
                                        ": scontrol needs a running munged to authenticate");
    // At a rack's power-on the controller, or the way to it, may come up after this node
    // fails: the drain is retried for as long as a pass would wait for registration.
    std::string reason = drain_reason(report);
    const std::vector<std::string> drain = scontrol_drain_argv(node, reason);
    const auto give_up = clock.now() + std::chrono::seconds(slurm.register_wait_s);
    int rc = 0, attempts = 0;
    for (;;) {
      rc = fx.run(drain, env, nullptr);
      ++attempts;
      if (rc == 0 || clock.now() >= give_up) break;
      clock.sleep(kDrainRetry);
    }
    out.record.actions.push_back({"drain", railyard::join(drain, " "), rc});
    query();
    std::string tries = attempts == 1 ? "" : std::to_string(attempts) + " attempts, ";
    if (rc != 0) {
      out.ok = false;
      say(JoinLine::Level::error, "could not drain " + node + " (scontrol exited " + std::to_string(rc) + ", " + tries +
                                      "within " + std::to_string(slurm.register_wait_s) +
                                      " s (join.slurm.register_wait_s); is " + slurm.controller +
                                      " reachable, munge running with the cluster's key?)");
    } else {
      say(JoinLine::Level::info,
          node + " drained: " + reason +
              (attempts == 1 ? "" : " (the controller answered at attempt " + std::to_string(attempts) + ")"));
    }
    return finish();
  }

  // A pass: slurmd is active; the controller sees the node once slurmd has registered.
  const auto start = clock.now();
  const auto deadline = start + std::chrono::seconds(slurm.register_wait_s);
  int rc = 0;
  for (;;) {
    rc = query();
    if (state.responding || clock.now() >= deadline) break;
    clock.sleep(Ms(500));
  }
  if (!state.responding) {
    out.ok = false;
    // What slurmd itself did meanwhile: one that cannot fetch its configuration exits, and
    // systemd starts it again (the build's drop-in); its journal says why.
    std::string unit_text, slurmd;
    if (fx.run({"systemctl", "show", kUnitProperties, kSlurmdUnit}, {}, &unit_text) == 0) {
      UnitState u = parse_unit_state(unit_text);
      slurmd = "; " + std::string(kSlurmdUnit) + " is " + unit_state_text(u) +
               (u.restarts > 0 ? ", " + restarted_by_systemd(u.restarts) : "") + " (see journalctl -u " + kSlurmdUnit +
               ")";
    }
    say(JoinLine::Level::error,
        rc != 0 ? "scontrol show node " + node + " exited " + std::to_string(rc) + " for " +
                      std::to_string(slurm.register_wait_s) + " s (join.slurm.register_wait_s): is " +
                      slurm.controller + " reachable, and does its slurm.conf list " + node + "?" + slurmd
                : node + " did not register with " + slurm.controller + " within " +
                      std::to_string(slurm.register_wait_s) + " s (join.slurm.register_wait_s); the controller says " +
                      (state.known ? state.state : std::string("nothing")) +
                      (state.reason.empty() ? "" : " (" + state.reason + ")") + slurmd);
    return finish();
  }
  out.record.registered_ms = ms_between(start, clock.now());
  say(JoinLine::Level::info, node + " registered with " + slurm.controller + ": " + state.state);
  if (!slurm.partition.empty() &&
      std::find(state.partitions.begin(), state.partitions.end(), slurm.partition) == state.partitions.end()) {
    out.ok = false;
    say(JoinLine::Level::error,
        node + " is not in partition " + slurm.partition + " (join.slurm.partition); it is in " +
            (state.partitions.empty() ? std::string("none") : railyard::join(state.partitions, ", ")));
  }
  std::vector<std::string> features = slurm_features(slurm, slurm_facts(report));
  out.record.features = features;
  if (!features.empty()) {
    if (int f = act("features", scontrol_features_argv(node, features)); f != 0)
      say(JoinLine::Level::warning, "could not set the features " + railyard::join(features, ",") +
                                        " (scontrol exited " + std::to_string(f) + ")");
  }
  if (state.drained) {
    if (!drained_by_railyard(state))
      say(JoinLine::Level::warning, node + " stays drained: the reason, '" + state.reason +
                                        "', is not railyard's; whoever drained it resumes it");
    else if (!slurm.resume_on_pass)
      say(JoinLine::Level::info, node + " stays drained (join.slurm.resume_on_pass = false): " + state.reason);
    else if (int r = act("resume", scontrol_resume_argv(node)); r != 0)
      say(JoinLine::Level::warning, "could not resume " + node + " (scontrol exited " + std::to_string(r) + ")");
    else say(JoinLine::Level::info, node + " resumed: the self-test that drained it (" + state.reason + ") now passes");
    // A resumed node is NOT_RESPONDING until the controller's next ping of it comes back.
    const auto settle = clock.now() + std::chrono::seconds(slurm.register_wait_s);
    for (query(); !state.responding && clock.now() < settle; query()) clock.sleep(Ms(500));
    if (!state.responding)
      say(JoinLine::Level::warning,
          node + " does not answer the controller's pings since it was resumed: " + state.state);
  }
  return finish();
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
