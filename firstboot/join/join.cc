#include "join/join.h"

#include <algorithm>
#include <filesystem>

#include "join_gate.h"
#include "kernel/root_files.h"
#include "text.h"

namespace railyard {

namespace {

using json = nlohmann::ordered_json;
using Ms = std::chrono::milliseconds;

constexpr const char* kReportFile = "/var/lib/railyard/report.json";
constexpr const char* kUnitProperties = "--property=ActiveState,SubState,Result,Job,ConditionResult";
constexpr Ms kUnitPoll{250};

long ms_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<long>(std::chrono::duration_cast<Ms>(b - a).count());
}

// POSTs `body`, retrying with bounded backoff; every attempt is recorded in `attempts`.
bool post_with_retries(const std::string& body, const JoinSpec& join, const std::string& token, JoinEffects& fx,
                       Clock& clock, std::vector<JoinLine>& log, json& attempts) {
  int delay_ms = 1000;
  for (int attempt = 0; attempt <= join.report_retries; ++attempt) {
    if (attempt > 0) {
      clock.sleep(Ms(delay_ms));
      delay_ms = std::min(delay_ms * 2, 30000);  // bounded backoff: never hold a boot for long
    }
    std::string err = fx.post(join.report_url, body, join.ca_file, token, 10000);
    attempts.push_back({{"attempt", attempt + 1}, {"error", err.empty() ? json(nullptr) : json(err)}});
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
};

// Starts every join unit, then waits, with one deadline for all, until each is active or
// cannot become so: failed, skipped by a condition, stopped again, or still starting at the
// deadline.
std::vector<UnitWait> start_units(const JoinSpec& join, JoinEffects& fx, Clock& clock) {
  std::vector<UnitWait> units;
  const auto start = clock.now();
  for (const auto& unit : join.units) {
    UnitWait w;
    w.unit = unit;
    if (int rc = fx.run({"systemctl", "start", "--no-block", unit}, {}, nullptr); rc != 0) {
      w.state = "not started";
      w.detail = "systemctl start exited " + std::to_string(rc);
      w.done = true;
    }
    units.push_back(std::move(w));
  }
  const auto deadline = start + std::chrono::seconds(join.unit_wait_s);
  for (;;) {
    bool pending = false;
    for (auto& w : units) {
      if (w.done) continue;
      std::string out;
      int rc = fx.run({"systemctl", "show", kUnitProperties, w.unit}, {}, &out);
      UnitState s = parse_unit_state(out);
      w.state = s.active.empty() ? "unknown" : s.active + (s.sub.empty() ? "" : " (" + s.sub + ")");
      w.done = true;
      if (rc != 0) w.detail = "systemctl show exited " + std::to_string(rc);
      else if (s.active == "active") w.ok = true;
      else if (s.active == "failed") w.detail = "it failed (Result=" + s.result + "); see journalctl -u " + w.unit;
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
    if (!pending) break;
    if (clock.now() >= deadline) {
      for (auto& w : units)
        if (!w.done) {
          w.done = true;
          w.waited_ms = ms_between(start, clock.now());
          w.detail = "still " + w.state + " after " + std::to_string(join.unit_wait_s) + " s (join.unit_wait_s)";
        }
      break;
    }
    clock.sleep(kUnitPoll);
  }
  return units;
}

}  // namespace

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
  }
  return s;
}

JoinOutcome report_and_join(Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock) {
  JoinOutcome out;
  auto say = [&out](JoinLine::Level level, std::string text) { out.log.push_back({level, std::move(text)}); };
  auto info = [&](std::string text) { say(JoinLine::Level::info, std::move(text)); };
  auto warning = [&](std::string text) { say(JoinLine::Level::warning, std::move(text)); };
  auto error = [&](std::string text) { say(JoinLine::Level::error, std::move(text)); };
  bool written = false;
  auto write_report = [&] {
    auto e = write_root_file(root, kReportFile, to_json(report).dump(2) + "\n", 0644);
    if (!e.empty() && !written) error("cannot write the report: " + e);
    written = written || e.empty();
    return e.empty();
  };
  // Locally first: neither a join that hangs nor an unreachable report URL loses the report.
  report.join = nullptr;
  if (write_report()) info("report written to " + std::string(kReportFile));

  json record = {{"gate", kJoinedMarker}, {"joined", false}, {"units", json::array()}, {"on_fail", nullptr}};
  const std::filesystem::path marker = std::filesystem::path(root.empty() ? "/" : root) / std::string(kJoinedMarker).substr(1);
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
      record["on_fail"] = {{"command", join.on_fail}, {"exit", rc}, {"failed_checks", failed}};
    }
    error("self-test failed: not joining; no unit started");
  } else if (auto e = write_root_file(root, kJoinedMarker, report.node + "\n", 0644); !e.empty()) {
    // The gate opens only with the marker: without it no join unit would start.
    error("cannot mark the node joined: " + e);
  } else {
    bool units_ok = true;
    for (const auto& w : start_units(join, fx, clock)) {
      say(w.ok ? JoinLine::Level::info : JoinLine::Level::error,
          w.unit + ": " + w.state + (w.detail.empty() ? "" : ": " + w.detail) + " (" + std::to_string(w.waited_ms) + " ms)");
      record["units"].push_back({{"unit", w.unit}, {"ok", w.ok}, {"state", w.state}, {"detail", w.detail},
                                 {"waited_ms", w.waited_ms}});
      units_ok = units_ok && w.ok;
    }
    if (units_ok) {
      out.joined = true;
      info("joined: " + std::string(kJoinedMarker));
    } else {
      // Closed again, so that nothing else gated starts; units already active stay so.
      std::filesystem::remove(marker, ec);
      error("a join unit did not become active: the node did not join; " + std::string(kJoinedMarker) + " removed");
    }
  }
  record["joined"] = out.joined;
  record["posted"] = nullptr;
  record["posts"] = json::array();
  report.join = record;
  write_report();
  // What the node's own exporters publish: node_exporter's textfile and node-feature-discovery's
  // feature file, written again once the POST is known.
  auto publish = [&] {
    if (!join.textfile_dir.empty())
      if (auto e = write_root_file(root, join.textfile_dir + "/railyard.prom", prometheus_text(report), 0644); !e.empty())
        warning("cannot write the node_exporter textfile: " + e);
    if (!join.nfd_features.empty())
      if (auto e = write_root_file(root, join.nfd_features, nfd_features_text(report), 0644); !e.empty())
        warning("cannot write the node-feature-discovery features: " + e);
  };
  publish();

  if (!join.report_url.empty()) {
    std::string token = join.token_file.empty() ? "" : read_token(join.token_file);
    // A token goes into a header line: one with spaces or control characters would split it.
    if (std::any_of(token.begin(), token.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
      warning(join.token_file + " holds white space or control characters, which no token has; posting without a "
                                "token");
      token.clear();
    }
    json attempts = json::array();
    bool sent = post_with_retries(to_json(report).dump(2) + "\n", join, token, fx, clock, out.log, attempts);
    report.join["posted"] = sent;
    report.join["posts"] = attempts;
    write_report();
    publish();
  }
  return out;
}

}  // namespace railyard
