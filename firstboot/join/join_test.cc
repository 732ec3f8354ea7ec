// Report and join (join.cc) with recorded effects under a temporary root: the report
// always written first, joining (the gate's marker, then the units started and waited for
// until active) only when the self-test passed, the on-fail command with the failing checks
// otherwise, the POST with its token and bounded backoff, and what all of it did recorded in
// the report's "join" object.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "join/join.h"
#include "support/fake_join.h"

using namespace railyard;
using railyard::test::RecordingJoin;
using railyard::test::TempRoot;
using railyard::test::TokenReader;

namespace {

const std::string kReport = "/var/lib/railyard/report.json";
const std::string kTextfile = "/var/lib/prometheus/node-exporter/railyard.prom";
const std::string kFeatures = "/etc/kubernetes/node-feature-discovery/features.d/railyard";
const std::string kJoined = "/run/railyard/joined";
const std::string kUrl = "https://fleet.example.net/api/v1/reports";

CheckResult result(const std::string& name, CheckStatus status, bool required = true) {
  CheckResult c;
  c.id = CheckId::parse(name);
  c.status = status;
  c.expected = "9000";
  c.observed = status == CheckStatus::pass ? "9000" : "1500";
  c.required = required;
  return c;
}

Report passing() {
  Report r;
  r.node = "gpu-a01";
  r.recipe = "hgx";
  r.railyard_version = "0.1.0";
  r.started_at = "2024-05-01T10:00:00Z";
  r.checks = {result("rail.0.mtu", CheckStatus::pass), result("rail.0.ecn", CheckStatus::warn, false)};
  r.phases = {{"verify", 2500}};
  return r;
}

Report failing() {
  Report r = passing();
  r.checks.push_back(result("rail.1.mtu", CheckStatus::fail));
  return r;
}

JoinSpec spec() {
  JoinSpec j;
  j.report_url = kUrl;
  j.ca_file = "/etc/railyard/fleet-ca.pem";
  j.token_file = "/etc/railyard/token";
  j.report_retries = 3;
  j.units = {"kubelet.service", "slurmd.service"};
  j.on_fail = "logger -t railyard quarantined";
  return j;
}

JoinOutcome run(Report& r, const JoinSpec& j, const TempRoot& root, RecordingJoin& fx) {
  TokenReader::reset();
  return report_and_join(r, j, root.str(), fx, &TokenReader::read, fx.clock);
}
JoinOutcome run(Report&& r, const JoinSpec& j, const TempRoot& root, RecordingJoin& fx) { return run(r, j, root, fx); }

std::vector<std::string> systemctl(const std::string& unit) { return {"systemctl", "start", "--no-block", unit}; }
// The one systemctl that starts both of spec()'s units.
const std::vector<std::string> kStartBoth = {"systemctl", "start", "--no-block", "kubelet.service", "slurmd.service"};

// The report as POSTed and as kept differ only by the POST attempts the kept one records.
nlohmann::json without_posts(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  if (j.contains("join") && j["join"].is_object()) {
    j["join"].erase("posts");
    j["join"].erase("posted");
  }
  return j;
}

bool logged(const JoinOutcome& o, const std::string& needle) {
  return std::any_of(o.log.begin(), o.log.end(),
                     [&](const JoinLine& l) { return l.text.find(needle) != std::string::npos; });
}

// The lines at `level`, in order.
std::vector<std::string> at_level(const JoinOutcome& o, JoinLine::Level level) {
  std::vector<std::string> out;
  for (const auto& l : o.log)
    if (l.level == level) out.push_back(l.text);
  return out;
}

std::string log_text(const JoinOutcome& o) {
  std::string out;
  for (const auto& l : o.log) out += l.text + "\n";
  return out;
}

int mode_of(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// A passing node

TEST_CASE("report_and_join: a passing node writes the report, POSTs it, starts its units and is joined") {
  TempRoot root;
  RecordingJoin fx;
  Report r = passing();
  auto out = run(r, spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(out.joined);

  CHECK(root.read(kReport) == to_json(r).dump(2) + "\n");
  CHECK(root.read(kTextfile) == prometheus_text(r));
  CHECK(root.read(kTextfile).find("\nrailyard_joined 1\n") != std::string::npos);
  CHECK(root.read(kTextfile).find("\nrailyard_report_posted 1\n") != std::string::npos);
  CHECK(root.read(kFeatures) == nfd_features_text(r));
  CHECK(root.read(kFeatures).find("railyard-joined=true\n") != std::string::npos);
  REQUIRE(fx.posts.size() == 1);
  CHECK(fx.posts[0].url == kUrl);
  CHECK(fx.posts[0].ca_file == "/etc/railyard/fleet-ca.pem");
  CHECK(fx.posts[0].bearer_token == "s3cret-token");
  CHECK(fx.posts[0].timeout_ms > 0);
  CHECK(fx.sleeps().empty());

  CHECK(fx.starts() == std::vector<std::vector<std::string>>{kStartBoth});
  CHECK(root.exists(kJoined));
  CHECK(root.read(kJoined) == "gpu-a01\n");
  auto join = nlohmann::json::parse(root.read(kReport))["join"];
  CHECK(join["joined"] == true);
  CHECK(join["gate"] == "/run/railyard/joined");
  REQUIRE(join["units"].size() == 2);
  CHECK(join["units"][0]["unit"] == "kubelet.service");
  CHECK(join["units"][0]["ok"] == true);
  CHECK(join["units"][0]["state"] == "active (running)");
  CHECK(join["on_fail"].is_null());
  CHECK(join["posted"] == true);
  CHECK(join["posts"] == nlohmann::json::parse(R"([{"attempt": 1, "error": null}])"));
  CHECK(logged(out, "report written to /var/lib/railyard/report.json"));
  CHECK(logged(out, "report sent to " + kUrl));
  CHECK(logged(out, "joined"));
}

TEST_CASE("report_and_join: the POST body is report.json but for the POST attempts the kept copy records") {
  TempRoot root;
  RecordingJoin fx;
  Report r = failing();
  run(r, spec(), root, fx);
  REQUIRE(fx.posts.size() == 1);
  CHECK(without_posts(fx.posts[0].body) == without_posts(root.read(kReport)));
  CHECK(nlohmann::json::parse(fx.posts[0].body)["join"]["posts"] == nlohmann::json::array());
  CHECK(nlohmann::json::parse(root.read(kReport))["join"]["posts"].size() == 1);
  auto j = nlohmann::json::parse(fx.posts[0].body);
  CHECK(j["schema"] == 1);
  CHECK(j["node"] == "gpu-a01");
  CHECK(j["result"] == "fail");
  REQUIRE(j["checks"].size() == 3);
  for (const char* key : {"name", "status", "expected", "observed", "detail"}) {
    CAPTURE(key);
    CHECK(j["checks"][2].contains(key));
  }
  CHECK(j["checks"][2]["status"] == "fail");
}

TEST_CASE("report_and_join: the files are written whole, mode 0644, with no temporary file left") {
  TempRoot root;
  RecordingJoin fx;
  run(passing(), spec(), root, fx);
  for (const auto& p : {kReport, kTextfile, kFeatures, kJoined}) {
    CAPTURE(p);
    CHECK(mode_of(root / p) == 0644);
    // Nothing but the file itself in its directory: no temporary left beside it.
    std::filesystem::path file = root / p;
    for (const auto& e : std::filesystem::directory_iterator(file.parent_path())) CHECK(e.path() == file);
  }
}

TEST_CASE("report_and_join: the bearer token comes from read_token; without a token file none is read") {
  TempRoot root;
  RecordingJoin fx;
  run(passing(), spec(), root, fx);
  CHECK(TokenReader::paths == std::vector<std::string>{"/etc/railyard/token"});
  REQUIRE(fx.posts.size() == 1);
  CHECK(fx.posts[0].bearer_token == "s3cret-token");

  TempRoot root2;
  RecordingJoin fx2;
  JoinSpec j = spec();
  j.token_file.clear();
  run(passing(), j, root2, fx2);
  CHECK(TokenReader::paths.empty());
  REQUIRE(fx2.posts.size() == 1);
  CHECK(fx2.posts[0].bearer_token.empty());
}

TEST_CASE("report_and_join: a token file with a line break or spaces inside is not sent as a header") {
  for (const std::string& bad : std::vector<std::string>{"abc\r\nX-Forged: 1", "abc def", std::string("abc\0def", 7)}) {
    TempRoot root;
    RecordingJoin fx;
    static std::string token;
    token = bad;
    Report r = passing();
    auto out = report_and_join(
        r, spec(), root.str(), fx, [](const std::string&) { return token; }, fx.clock);
    REQUIRE(fx.posts.size() == 1);
    CHECK(fx.posts[0].bearer_token.empty());
    CHECK(logged(
        out,
        "/etc/railyard/token holds white space or control characters, which no token has; posting without a token"));
  }
}

TEST_CASE("report_and_join: no report_url, no POST and no token read; the node still joins") {
  TempRoot root;
  RecordingJoin fx;
  JoinSpec j = spec();
  j.report_url.clear();
  auto out = run(passing(), j, root, fx);
  CHECK(fx.posts.empty());
  CHECK(fx.sleeps().empty());
  CHECK(TokenReader::paths.empty());
  CHECK(root.exists(kReport));
  CHECK(out.joined);
  CHECK(root.exists(kJoined));
}

TEST_CASE("report_and_join: no units to start still joins") {
  TempRoot root;
  RecordingJoin fx;
  JoinSpec j = spec();
  j.units.clear();
  auto out = run(passing(), j, root, fx);
  CHECK(out.joined);
  CHECK(fx.commands.empty());
  CHECK(root.read(kJoined) == "gpu-a01\n");
}

TEST_CASE("report_and_join: a unit that does not start leaves the node not joined, and the gate closed again") {
  TempRoot root;
  RecordingJoin fx;
  fx.exit_codes["kubelet.service"] = 5;
  auto out = run(passing(), spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK_FALSE(out.joined);
  CHECK_FALSE(root.exists(kJoined));
  REQUIRE_FALSE(fx.commands.empty());
  // The one start for both failed: each again on its own names the one systemd refused.
  REQUIRE(fx.starts().size() == 3);
  CHECK(fx.commands[0] == kStartBoth);
  CHECK(fx.starts()[1] == systemctl("kubelet.service"));
  CHECK(fx.starts()[2] == systemctl("slurmd.service"));
  CHECK(logged(out, "kubelet.service: not started: systemctl start exited 5"));
  CHECK(logged(out, "a join unit did not become active: the node did not join; /run/railyard/joined removed"));
  auto join = nlohmann::json::parse(root.read(kReport))["join"];
  CHECK(join["joined"] == false);
  CHECK(join["units"][0]["ok"] == false);
  CHECK(join["units"][1]["ok"] == true);
}

TEST_CASE("report_and_join: the textfile and the feature file go where the recipe says, or nowhere") {
  TempRoot root;
  RecordingJoin fx;
  JoinSpec j = spec();
  j.textfile_dir = "/srv/textfiles";
  j.nfd_features = "";
  Report r = passing();
  run(r, j, root, fx);
  CHECK(root.read("/srv/textfiles/railyard.prom") == prometheus_text(r));
  CHECK_FALSE(root.exists(kTextfile));
  CHECK_FALSE(root.exists(kFeatures));
}

TEST_CASE("report_and_join: the gate opens before any unit is started") {
  TempRoot root;
  RecordingJoin fx;
  std::vector<bool> open_at_start;
  fx.on_run = [&](const std::vector<std::string>& argv) {
    if (argv.size() > 1 && argv[1] == "start") open_at_start.push_back(root.exists(kJoined));
  };
  CHECK(run(passing(), spec(), root, fx).joined);
  CHECK(open_at_start == std::vector<bool>{true});
}

TEST_CASE("report_and_join: the units are waited for until active, polled every 250 ms") {
  TempRoot root;
  RecordingJoin fx;
  fx.unit_states["slurmd.service"] = {
      "ActiveState=inactive\nSubState=dead\nJob=41\n", "ActiveState=activating\nSubState=start\nJob=41\n",
      "ActiveState=activating\nSubState=start\nJob=41\n", "ActiveState=active\nSubState=running\n"};
  Report r = passing();
  auto out = run(r, spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(out.joined);
  CHECK(fx.sleeps() == std::vector<int>{250, 250, 250});
  CHECK(logged(out, "slurmd.service: active (running) (750 ms)"));
  CHECK(r.join["units"][1]["waited_ms"] == 750);
  CHECK(r.join["units"][0]["waited_ms"] == 0);
  // Both units in one systemctl show, then the one still starting alone.
  const std::string props = "--property=ActiveState,SubState,Result,Job,ConditionResult,NRestarts";
  std::vector<std::string> both = {"systemctl", "show", props, "kubelet.service", "slurmd.service"};
  std::vector<std::string> show = {"systemctl", "show", props, "slurmd.service"};
  CHECK(std::count(fx.commands.begin(), fx.commands.end(), both) == 1);
  CHECK(std::count(fx.commands.begin(), fx.commands.end(), show) == 3);
}

TEST_CASE("report_and_join: a unit that fails, one skipped by a condition, one that stops, and one still starting") {
  struct Case {
    std::string state, detail;
  };
  const std::vector<Case> cases = {
      {"ActiveState=failed\nSubState=failed\nResult=exit-code\n",
       "slurmd.service: failed (failed): it failed (Result=exit-code), 12 times within 60 s (join.unit_wait_s; started "
       "again every 5 s); see journalctl -u slurmd.service"},
      {"ActiveState=inactive\nSubState=dead\nConditionResult=no\n",
       "slurmd.service: inactive (dead): skipped: a start condition did not hold (is /run/railyard/joined there? see "
       "systemctl status slurmd.service)"},
      {"ActiveState=inactive\nSubState=dead\nConditionResult=yes\n",
       "slurmd.service: inactive (dead): it started and stopped again (a oneshot needs RemainAfterExit=yes)"},
      {"ActiveState=activating\nSubState=start-pre\nJob=7\n",
       "slurmd.service: activating (start-pre): still activating (start-pre) after 60 s (join.unit_wait_s)"},
      // Restart=on-failure (the build's slurmd drop-in): between its starts systemd waits.
      {"ActiveState=activating\nSubState=auto-restart\nJob=9\nNRestarts=11\n",
       "slurmd.service: activating (auto-restart): still activating (auto-restart) after 60 s (join.unit_wait_s; "
       "systemd started it again 11 times); see journalctl -u slurmd.service"},
      {"ActiveState=activating\nSubState=auto-restart\nJob=9\nNRestarts=1\n",
       "slurmd.service: activating (auto-restart): still activating (auto-restart) after 60 s (join.unit_wait_s; "
       "systemd started it again once); see journalctl -u slurmd.service"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.state);
    TempRoot root;
    RecordingJoin fx;
    fx.unit_states["slurmd.service"] = {c.state};
    Report r = passing();
    auto out = run(r, spec(), root, fx);
    CAPTURE(log_text(out));
    CHECK_FALSE(out.joined);
    CHECK_FALSE(root.exists(kJoined));
    CHECK(logged(out, c.detail));
    CHECK(at_level(out, JoinLine::Level::error).size() == 2);  // the unit, and not joining
    CHECK(r.join["joined"] == false);
    CHECK(r.join["units"][1]["ok"] == false);
  }
}

TEST_CASE("report_and_join: a join unit that fails is started again until it is active, within join.unit_wait_s") {
  // A configless slurmd exits when the controller is not up yet (a rack's power-on): it is
  // started again every 5 s.
  TempRoot root;
  RecordingJoin fx;
  const std::string failed = "ActiveState=failed\nSubState=failed\nResult=exit-code\n";
  fx.unit_states["slurmd.service"] = {failed, failed, "ActiveState=activating\nSubState=start\nJob=9\n",
                                      "ActiveState=active\nSubState=running\n"};
  Report r = passing();
  auto out = run(r, spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(out.joined);
  CHECK(logged(out, "slurmd.service: active (running) (10250 ms)"));
  const std::vector<std::string> reset = {"systemctl", "reset-failed", "slurmd.service"};
  CHECK(std::count(fx.commands.begin(), fx.commands.end(), reset) == 2);
  CHECK(fx.starts().size() == 3);  // kubelet and slurmd in one, then slurmd twice more
}

TEST_CASE("report_and_join: the wait for the units has one deadline, join.unit_wait_s") {
  TempRoot root;
  RecordingJoin fx;
  fx.unit_states["kubelet.service"] = {"ActiveState=activating\nSubState=start\nJob=3\n"};
  fx.unit_states["slurmd.service"] = {"ActiveState=activating\nSubState=start\nJob=4\n"};
  JoinSpec j = spec();
  j.unit_wait_s = 5;
  auto out = run(passing(), j, root, fx);
  CHECK_FALSE(out.joined);
  CHECK(fx.sleeps().size() == 20);  // 5 s in 250 ms steps, for both units together
  CHECK(logged(out,
               "kubelet.service: activating (start): still activating (start) after 5 s (join.unit_wait_s) (5000 ms)"));
  CHECK(logged(out,
               "slurmd.service: activating (start): still activating (start) after 5 s (join.unit_wait_s) (5000 ms)"));
}

// ---------------------------------------------------------------------------------------------
// The POST: retries with bounded backoff

TEST_CASE("report_and_join: a failing POST is retried report_retries times, 1 s, 2 s, 4 s apart") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = kUrl + ": Couldn't connect to server";
  auto out = run(passing(), spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(fx.posts.size() == 4);  // the first attempt and 3 retries
  CHECK(fx.sleeps() == std::vector<int>{1000, 2000, 4000});
  for (const auto& p : fx.posts) CHECK(p.body == fx.posts[0].body);
  CHECK(logged(out, "report POST attempt 1 failed: " + kUrl + ": Couldn't connect to server"));
  CHECK(logged(out, "report POST attempt 4 failed"));
  CHECK_FALSE(logged(out, "report POST attempt 5"));
}

TEST_CASE("report_and_join: failed attempts are warnings; a report never sent is the one error") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = kUrl + ": Couldn't connect to server";
  auto out = run(passing(), spec(), root, fx);
  CHECK(at_level(out, JoinLine::Level::warning).size() == 4);
  CHECK(at_level(out, JoinLine::Level::error) ==
        std::vector<std::string>{"the report was not sent to " + kUrl +
                                 " (4 attempts); it is in /var/lib/railyard/report.json"});
  CHECK(out.joined);  // the report is kept locally; the node's fabric passed
}

TEST_CASE("report_and_join: a passing node's lines are information only; a failing node's refusal is an error") {
  TempRoot root;
  RecordingJoin fx;
  auto ok = run(passing(), spec(), root, fx);
  CHECK(at_level(ok, JoinLine::Level::error).empty());
  CHECK(at_level(ok, JoinLine::Level::warning).empty());
  RecordingJoin fx2;
  JoinSpec j = spec();
  j.on_fail.clear();
  auto failed = run(failing(), j, root, fx2);
  CHECK(at_level(failed, JoinLine::Level::error) ==
        std::vector<std::string>{"self-test failed: not joining; no unit started"});
}

TEST_CASE("report_and_join: the backoff doubles up to 30 s and stays there") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = "HTTP 503";
  JoinSpec j = spec();
  j.report_retries = 10;  // the schema's maximum
  run(passing(), j, root, fx);
  CHECK(fx.posts.size() == 11);
  CHECK(fx.sleeps() == std::vector<int>{1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000});
}

TEST_CASE("report_and_join: a POST that succeeds on a retry stops retrying") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_answers = {"HTTP 502", "timeout", ""};
  fx.post_default = "must not be asked";
  auto out = run(passing(), spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(fx.posts.size() == 3);
  CHECK(fx.sleeps() == std::vector<int>{1000, 2000});
  CHECK(logged(out, "report sent to " + kUrl));
  CHECK(out.joined);
}

TEST_CASE("report_and_join: report_retries 0 makes one attempt and never sleeps") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = "HTTP 500";
  JoinSpec j = spec();
  j.report_retries = 0;
  run(passing(), j, root, fx);
  CHECK(fx.posts.size() == 1);
  CHECK(fx.sleeps().empty());
}

TEST_CASE("report_and_join: an unreachable report URL keeps the report locally, and a passing node still joins") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = kUrl + ": Could not resolve host";
  Report r = passing();
  auto out = run(r, spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(root.read(kReport) == to_json(r).dump(2) + "\n");
  CHECK(root.read(kTextfile) == prometheus_text(r));
  CHECK(out.joined);
  CHECK(root.exists(kJoined));
  CHECK(fx.starts() == std::vector<std::vector<std::string>>{kStartBoth});
  CHECK(r.join["posted"] == false);
  REQUIRE(r.join["posts"].size() == 4);
  CHECK(r.join["posts"][3]["error"] == kUrl + ": Could not resolve host");
}

// ---------------------------------------------------------------------------------------------
// A failing node

TEST_CASE("report_and_join: a failing node still reports, runs on_fail through /bin/sh -c and starts nothing") {
  TempRoot root;
  RecordingJoin fx;
  Report r = failing();
  auto out = run(r, spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK_FALSE(out.joined);
  CHECK(root.read(kReport) == to_json(r).dump(2) + "\n");
  CHECK(root.read(kTextfile).find("railyard_selftest_pass{node=\"gpu-a01\",recipe=\"hgx\"} 0\n") != std::string::npos);
  REQUIRE(fx.posts.size() == 1);
  CHECK(without_posts(fx.posts[0].body) == without_posts(root.read(kReport)));
  CHECK(fx.commands == std::vector<std::vector<std::string>>{{"/bin/sh", "-c", "logger -t railyard quarantined"}});
  CHECK_FALSE(root.exists(kJoined));
  CHECK(logged(out, "not joining"));
  CHECK(r.join["joined"] == false);
  CHECK(r.join["units"] == nlohmann::json::array());
  CHECK(r.join["on_fail"]["exit"] == 0);
  CHECK(r.join["on_fail"]["failed_checks"] == nlohmann::json::parse(R"(["rail.1.mtu"])"));
}

TEST_CASE("report_and_join: on_fail is given the failing checks, a drain reason, the node and the report") {
  TempRoot root;
  RecordingJoin fx;
  Report r = failing();
  r.checks.push_back(result("rail.2.link", CheckStatus::fail));
  r.checks.push_back(result("rail.3.pfc", CheckStatus::unsupported, false));  // best effort: not among them
  run(r, spec(), root, fx);
  REQUIRE(fx.envs.size() == 1);
  CHECK(fx.envs[0] == std::vector<std::string>{"RAILYARD_FAILED_CHECKS=rail.1.mtu,rail.2.link",
                                               "RAILYARD_DRAIN_REASON=railyard: rail.1.mtu, rail.2.link",
                                               "RAILYARD_NODE=gpu-a01",
                                               "RAILYARD_REPORT=/var/lib/railyard/report.json"});
}

TEST_CASE("report_and_join: a failing node closes a gate a pass opened earlier in the boot") {
  TempRoot root;
  RecordingJoin fx;
  CHECK(run(passing(), spec(), root, fx).joined);
  CHECK(root.exists(kJoined));
  RecordingJoin fx2;
  CHECK_FALSE(run(failing(), spec(), root, fx2).joined);
  CHECK_FALSE(root.exists(kJoined));
  CHECK(fx2.starts().empty());
}

TEST_CASE("report_and_join: a failing node whose POST fails still retries, and still runs on_fail") {
  TempRoot root;
  RecordingJoin fx;
  fx.post_default = "HTTP 503";
  fx.exit_codes["logger -t railyard quarantined"] = 1;
  auto out = run(failing(), spec(), root, fx);
  CAPTURE(log_text(out));
  CHECK(fx.posts.size() == 4);
  CHECK(fx.sleeps() == std::vector<int>{1000, 2000, 4000});
  CHECK(fx.commands.size() == 1);
  CHECK(logged(out, "on_fail command exited 1"));
  CHECK_FALSE(out.joined);
  CHECK_FALSE(root.exists(kJoined));
}

TEST_CASE("report_and_join: a failing node without on_fail runs nothing") {
  TempRoot root;
  RecordingJoin fx;
  JoinSpec j = spec();
  j.on_fail.clear();
  auto out = run(failing(), j, root, fx);
  CHECK(fx.commands.empty());
  CHECK_FALSE(out.joined);
  CHECK(fx.posts.size() == 1);
}

TEST_CASE("report_and_join: a planning problem or a required unsupported check fails the node like a failed check") {
  Report problem = passing();
  problem.problems = {"no RDMA NIC found for the rails"};
  Report unsupported = passing();
  unsupported.checks.push_back(result("rail.0.pfc", CheckStatus::unsupported, true));
  for (Report r : {problem, unsupported}) {
    TempRoot root;
    RecordingJoin fx;
    auto out = run(r, spec(), root, fx);
    CHECK_FALSE(out.joined);
    CHECK(fx.commands == std::vector<std::vector<std::string>>{{"/bin/sh", "-c", "logger -t railyard quarantined"}});
    CHECK_FALSE(root.exists(kJoined));
    CHECK(fx.envs[0][0] == (r.problems.empty() ? "RAILYARD_FAILED_CHECKS=rail.0.pfc" : "RAILYARD_FAILED_CHECKS=plan"));
  }

  Report tolerated = passing();  // best-effort unsupported: joins
  tolerated.checks.push_back(result("rail.0.ecn", CheckStatus::unsupported, false));
  TempRoot root;
  RecordingJoin fx;
  CHECK(run(tolerated, spec(), root, fx).joined);
}

// ---------------------------------------------------------------------------------------------
// Files that cannot be written

TEST_CASE(
    "report_and_join: an unwritable root is logged; the report is still POSTed, but the node is not marked joined") {
  TempRoot dir;
  std::string root = (dir / "/not-a-directory").string();
  { std::ofstream(root) << "a file where the root should be"; }
  RecordingJoin fx;
  TokenReader::reset();
  Report r = passing();
  auto out = report_and_join(r, spec(), root, fx, &TokenReader::read, fx.clock);
  CAPTURE(log_text(out));
  CHECK(logged(out, "cannot write the report"));
  CHECK(logged(out, "cannot write the node_exporter textfile"));
  REQUIRE(fx.posts.size() == 1);
  CHECK(nlohmann::json::parse(fx.posts[0].body)["node"] == "gpu-a01");
  CHECK(logged(out, "cannot mark the node joined"));
  CHECK(fx.starts().empty());  // without the marker the gate stays shut: no unit is started
  CHECK_FALSE(out.joined);
}

TEST_CASE("report_and_join: a second run replaces the previous report") {
  TempRoot root;
  RecordingJoin fx;
  run(failing(), spec(), root, fx);
  CHECK(nlohmann::json::parse(root.read(kReport))["result"] == "fail");
  RecordingJoin fx2;
  auto out = run(passing(), spec(), root, fx2);
  CHECK(nlohmann::json::parse(root.read(kReport))["result"] == "pass");
  CHECK(out.joined);
}

// ---------------------------------------------------------------------------------------------
// Slurm ([join.slurm])

namespace {

SlurmSpec slurm_spec() {
  SlurmSpec s;
  s.controller = "10.0.0.1";
  s.cluster = "lab";
  s.partition = "gpu";
  s.features = {"railyard", "rails{rails}", "gpus{gpus}", "{rdma}"};
  return s;
}

Report with_plan(Report r) {
  r.plan = {{"rails", {{{"rail", 0}, {"rdma_device", "mlx5_0"}}, {{"rail", 1}, {"rdma_device", "mlx5_1"}}}}};
  r.inventory = {{"gpus", nlohmann::ordered_json::array({nlohmann::ordered_json::object()})}};
  return r;
}

// `scontrol show node gpu-a01 --oneliner`, cut to what is read.
std::string node_line(const std::string& state, bool started, const std::string& partitions = "gpu",
                      const std::string& reason = "", const std::string& features = "(null)") {
  return "NodeName=gpu-a01 Arch=x86_64 AvailableFeatures=" + features + " ActiveFeatures=" + features +
         " State=" + state + " Partitions=" + partitions +
         " SlurmdStartTime=" + (started ? "2026-12-02T23:17:32" : "None") +
         (reason.empty() ? "" : " Reason=" + reason + " [root@2026-12-02T23:17:32]") + "\n";
}

// What slurm_spec()'s features come to for with_plan(passing()).
const std::string kLabFeatures = "railyard,rails2,gpus1,mlx5_0,mlx5_1";

JoinOutcome run_slurm(Report& r, const SlurmSpec& s, const TempRoot& root, RecordingJoin& fx) {
  TokenReader::reset();
  JoinSpec j = spec();
  j.report_url.clear();
  return report_and_join(r, j, root.str(), fx, &TokenReader::read, fx.clock, s);
}

// The `scontrol update` commands, in order.
std::vector<std::vector<std::string>> updates(const RecordingJoin& fx) {
  std::vector<std::vector<std::string>> out;
  for (const auto& c : fx.commands)
    if (c.size() > 1 && c[0] == "scontrol" && c[1] == "update") out.push_back(c);
  return out;
}

}  // namespace

TEST_CASE("slurm: a failing node is drained with the failing checks, through the agent's own client configuration") {
  TempRoot root;
  RecordingJoin fx;
  fx.outputs["scontrol"] = {node_line("IDLE+DRAIN", false, "gpu", "railyard: rail.1.mtu")};
  Report r = with_plan(failing());
  auto out = run_slurm(r, slurm_spec(), root, fx);
  CHECK_FALSE(out.joined);
  REQUIRE(updates(fx).size() == 1);
  CHECK(updates(fx)[0] == std::vector<std::string>{"scontrol", "update", "NodeName=gpu-a01", "State=DRAIN",
                                                   "Reason=railyard: rail.1.mtu"});
  for (std::size_t i = 0; i < fx.commands.size(); ++i)
    if (fx.commands[i][0] == "scontrol")
      CHECK(fx.envs[i] == std::vector<std::string>{"SLURM_CONF=" + (root / "/run/railyard/slurm.conf").string()});
  CHECK(root.read("/run/railyard/slurm.conf").find("\nSlurmctldHost=10.0.0.1\n") != std::string::npos);
  // No join unit; munge only, before the drain it authenticates.
  CHECK(fx.starts() == std::vector<std::vector<std::string>>{{"systemctl", "start", "munge.service"}});
  auto munge = std::find(fx.commands.begin(), fx.commands.end(),
                         std::vector<std::string>{"systemctl", "start", "munge.service"});
  CHECK(munge < std::find(fx.commands.begin(), fx.commands.end(), updates(fx)[0]));
  const auto& rec = r.join["slurm"];
  CHECK(rec["node"] == "gpu-a01");
  CHECK(rec["state"] == "IDLE+DRAIN");
  CHECK(rec["reason"] == "railyard: rail.1.mtu");
  CHECK(rec["registered_ms"].is_null());
  CHECK(rec["actions"][0]["action"] == "drain");
  CHECK(rec["actions"][0]["exit"] == 0);
  CHECK(logged(out, "slurm: gpu-a01 drained: railyard: rail.1.mtu"));
  auto kept = nlohmann::json::parse(root.read(kReport));
  CHECK(kept["join"]["slurm"]["state"] == "IDLE+DRAIN");
}

TEST_CASE("slurm: a drain that fails is an error naming the controller; drain_on_fail = false drains nothing") {
  {
    TempRoot root;
    RecordingJoin fx;
    fx.exit_codes["Reason=railyard: rail.1.mtu"] = 1;
    fx.exit_codes["munge.service"] = 1;
    Report r = with_plan(failing());
    auto out = run_slurm(r, slurm_spec(), root, fx);
    CHECK(logged(out, "systemctl start munge.service exited 1: scontrol needs a running munged to authenticate"));
    // Retried every 2 s for register_wait_s (30 s), then an error; one action, the last exit.
    CHECK(updates(fx).size() == 16);
    CHECK(logged(out,
                 "could not drain gpu-a01 (scontrol exited 1, 16 attempts, within 30 s (join.slurm.register_wait_s); "
                 "is 10.0.0.1 reachable"));
    REQUIRE(r.join["slurm"]["actions"].size() == 1);
    CHECK(r.join["slurm"]["actions"][0]["exit"] == 1);
  }
  {
    // A controller that answers only after a while (a rack powering on): drained then.
    TempRoot root;
    RecordingJoin fx;
    fx.exit_codes["Reason=railyard: rail.1.mtu"] = 1;
    int drains = 0;
    fx.on_run = [&](const std::vector<std::string>& argv) {
      if (argv.size() > 1 && argv[1] == "update" && ++drains == 3) fx.exit_codes.erase("Reason=railyard: rail.1.mtu");
    };
    Report r = with_plan(failing());
    auto out = run_slurm(r, slurm_spec(), root, fx);
    CHECK(updates(fx).size() == 3);
    CHECK(logged(out, "slurm: gpu-a01 drained: railyard: rail.1.mtu (the controller answered at attempt 3)"));
    CHECK(r.join["slurm"]["actions"][0]["exit"] == 0);
    CHECK(std::count(fx.clock.sleeps.begin(), fx.clock.sleeps.end(), std::chrono::milliseconds(2000)) == 2);
  }
  {
    TempRoot root;
    RecordingJoin fx;
    SlurmSpec s = slurm_spec();
    s.drain_on_fail = false;
    Report r = with_plan(failing());
    auto out = run_slurm(r, s, root, fx);
    CHECK(updates(fx).empty());
    CHECK(logged(out, "not drained (join.slurm.drain_on_fail = false)"));
  }
}

TEST_CASE("slurm: a pass waits for the node to register, then sets its features from the self-test") {
  TempRoot root;
  RecordingJoin fx;
  fx.outputs["scontrol"] = {node_line("UNKNOWN", false), node_line("IDLE+NOT_RESPONDING", true),
                            node_line("IDLE", true, "gpu,debug"),
                            node_line("IDLE", true, "gpu,debug", "", kLabFeatures)};
  Report r = with_plan(passing());
  auto out = run_slurm(r, slurm_spec(), root, fx);
  CHECK(out.joined);
  CHECK(root.exists(kJoined));
  REQUIRE(updates(fx).size() == 1);
  CHECK(updates(fx)[0] == std::vector<std::string>{"scontrol", "update", "NodeName=gpu-a01",
                                                   "AvailableFeatures=railyard,rails2,gpus1,mlx5_0,mlx5_1",
                                                   "ActiveFeatures=railyard,rails2,gpus1,mlx5_0,mlx5_1"});
  const auto& rec = r.join["slurm"];
  CHECK(rec["registered_ms"] == 1000);  // asked every 500 ms
  CHECK(rec["state"] == "IDLE");
  CHECK(rec["partitions"] == nlohmann::ordered_json::array({"gpu", "debug"}));
  CHECK(logged(out, "slurm: gpu-a01 registered with 10.0.0.1: IDLE"));
  // slurmd is started (a join unit) before the controller is asked.
  auto first_ask =
      std::find_if(fx.commands.begin(), fx.commands.end(), [](const auto& c) { return c[0] == "scontrol"; });
  auto last_start =
      std::find_if(fx.commands.rbegin(), fx.commands.rend(), [](const auto& c) { return c[0] == "systemctl"; });
  CHECK(first_ask - fx.commands.begin() > fx.commands.rend() - last_start - 1);
}

TEST_CASE("slurm: features a reconfigure resets right after the set are set again, once") {
  for (int resets : {1, 2}) {
    CAPTURE(resets);
    TempRoot root;
    RecordingJoin fx;
    fx.outputs["scontrol"] = {node_line("IDLE", true)};  // registered, before the set
    for (int i = 0; i < resets; ++i) fx.outputs["scontrol"].push_back(node_line("IDLE", true));
    fx.outputs["scontrol"].push_back(node_line("IDLE", true, "gpu", "", kLabFeatures));
    Report r = with_plan(passing());
    auto out = run_slurm(r, slurm_spec(), root, fx);
    CHECK(out.joined);
    CHECK(updates(fx).size() == 2);  // set, and set again; never a third time
    CHECK(logged(out, "right after they were set (a reconfigure resets them to slurm.conf's): setting them again"));
    CHECK(std::any_of(out.log.begin(), out.log.end(), [&](const JoinLine& l) {
            return l.level == JoinLine::Level::warning && l.text.find("right after they were set") != std::string::npos;
          }) == (resets == 2));
  }
}

TEST_CASE("slurm: a pass resumes only railyard's drains") {
  struct Case {
    std::string reason;
    bool resume_on_pass;
    bool resumes;
    std::string says;
  };
  for (const auto& c : std::vector<Case>{
           {"railyard: rail.3.link", true, true,
            "resumed: the self-test that drained it (railyard: rail.3.link) now passes"},
           {"railyard: rail.3.link", false, false, "stays drained (join.slurm.resume_on_pass = false)"},
           {"PSU swap, ticket 4411", true, false,
            "stays drained: the reason, 'PSU swap, ticket 4411', is not railyard's"},
           // The fleet sweep's drain: the next sweep resumes it, not a boot's pass against a reference.
           {"railyard: sweep rail.1 failed with 31 of 33 peers", true, false,
            "stays drained: the fleet sweep drained it (railyard: sweep rail.1 failed with 31 of 33 peers)"},
       }) {
    CAPTURE(c.reason);
    TempRoot root;
    RecordingJoin fx;
    fx.outputs["scontrol"] = {node_line("IDLE+DRAIN", true, "gpu", c.reason), node_line("IDLE", true)};
    SlurmSpec s = slurm_spec();
    s.resume_on_pass = c.resume_on_pass;
    s.features.clear();
    Report r = with_plan(passing());
    auto out = run_slurm(r, s, root, fx);
    CHECK(out.joined);  // drained or not, the node is in the cluster
    bool resumed = false;
    for (const auto& u : updates(fx)) resumed = resumed || u.back() == "State=RESUME";
    CHECK(resumed == c.resumes);
    CHECK(logged(out, c.says));
  }
}

TEST_CASE("slurm: a node that never registers, or lands outside its partition, has not joined") {
  {
    TempRoot root;
    RecordingJoin fx;
    fx.outputs["scontrol"] = {node_line("IDLE+DRAIN", false, "gpu", "railyard: rail.1.mtu")};
    SlurmSpec s = slurm_spec();
    s.register_wait_s = 5;
    Report r = with_plan(passing());
    auto out = run_slurm(r, s, root, fx);
    CHECK_FALSE(out.joined);
    CHECK_FALSE(root.exists(kJoined));
    CHECK(logged(out,
                 "gpu-a01 did not register with 10.0.0.1 within 5 s (join.slurm.register_wait_s); the controller "
                 "says IDLE+DRAIN (railyard: rail.1.mtu); slurmd.service is active (running) (see journalctl -u "
                 "slurmd.service)"));
    CHECK(logged(out, "Slurm did not take the node: the node did not join"));
    CHECK(r.join["slurm"]["registered_ms"].is_null());
    CHECK(updates(fx).empty());  // a node not in the cluster is not resumed
    CHECK(fx.clock.now() - railyard::test::FakeClock::time_point{} >= std::chrono::seconds(5));
  }
  {
    // slurmd was active when the agent looked, then exited (configless: the controller did not
    // answer its configuration request) and systemd keeps starting it again: the error says so.
    TempRoot root;
    RecordingJoin fx;
    fx.outputs["scontrol"] = {node_line("UNKNOWN+DRAIN+NOT_RESPONDING", false, "gpu", "railyard: rail.2.link")};
    fx.unit_states["slurmd.service"] = {"ActiveState=active\nSubState=running\n",
                                        "ActiveState=activating\nSubState=auto-restart\nNRestarts=2\n"};
    SlurmSpec s = slurm_spec();
    s.register_wait_s = 5;
    Report r = with_plan(passing());
    auto out = run_slurm(r, s, root, fx);
    CHECK_FALSE(out.joined);
    CHECK(logged(out,
                 "the controller says UNKNOWN+DRAIN+NOT_RESPONDING (railyard: rail.2.link); slurmd.service is "
                 "activating (auto-restart), systemd started it again 2 times (see journalctl -u slurmd.service)"));
  }
  {
    TempRoot root;
    RecordingJoin fx;
    fx.outputs["scontrol"] = {node_line("IDLE", true, "debug")};
    Report r = with_plan(passing());
    auto out = run_slurm(r, slurm_spec(), root, fx);
    CHECK_FALSE(out.joined);
    CHECK(logged(out, "gpu-a01 is not in partition gpu (join.slurm.partition); it is in debug"));
  }
  {
    TempRoot root;
    RecordingJoin fx;
    fx.exit_codes["--oneliner"] = 1;
    SlurmSpec s = slurm_spec();
    s.register_wait_s = 1;
    Report r = with_plan(passing());
    auto out = run_slurm(r, s, root, fx);
    CHECK_FALSE(out.joined);
    CHECK(
        logged(out, "scontrol show node gpu-a01 exited 1 for 1 s (join.slurm.register_wait_s): is 10.0.0.1 reachable"));
  }
}

TEST_CASE("slurm: without a controller nothing speaks to Slurm and the report has no slurm record") {
  TempRoot root;
  RecordingJoin fx;
  Report r = with_plan(failing());
  run_slurm(r, SlurmSpec{}, root, fx);
  for (const auto& c : fx.commands) CHECK(c[0] != "scontrol");
  CHECK_FALSE(r.join.contains("slurm"));
  CHECK_FALSE(root.exists("/run/railyard/slurm.conf"));
}
