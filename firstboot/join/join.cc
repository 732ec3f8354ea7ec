#include "join/join.h"

#include <algorithm>
#include <filesystem>

#include "kernel/root_files.h"

namespace railyard {

namespace {

std::string post_with_retries(const std::string& body, const JoinSpec& join, const std::string& token, JoinEffects& fx,
                              Clock& clock, std::vector<JoinLine>& log) {
  std::string err;
  int delay_ms = 1000;
  for (int attempt = 0; attempt <= join.report_retries; ++attempt) {
    if (attempt > 0) {
      clock.sleep(std::chrono::milliseconds(delay_ms));
      delay_ms = std::min(delay_ms * 2, 30000);  // bounded backoff: never hold a boot for long
    }
    err = fx.post(join.report_url, body, join.ca_file, token, 10000);
    if (err.empty()) {
      log.push_back({JoinLine::Level::info, "report sent to " + join.report_url});
      return "";
    }
    log.push_back({JoinLine::Level::warning, "report POST attempt " + std::to_string(attempt + 1) + " failed: " + err});
  }
  log.push_back({JoinLine::Level::error, "the report was not sent to " + join.report_url + " (" +
                                             std::to_string(join.report_retries + 1) + " attempts); it is in "
                                             "/var/lib/railyard/report.json"});
  return err;
}

}  // namespace

JoinOutcome report_and_join(const Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock) {
  JoinOutcome out;
  auto say = [&out](JoinLine::Level level, std::string text) { out.log.push_back({level, std::move(text)}); };
  auto info = [&](std::string text) { say(JoinLine::Level::info, std::move(text)); };
  auto warning = [&](std::string text) { say(JoinLine::Level::warning, std::move(text)); };
  auto error = [&](std::string text) { say(JoinLine::Level::error, std::move(text)); };
  auto ok_or_error = [](int rc) { return rc == 0 ? JoinLine::Level::info : JoinLine::Level::error; };
  std::string body = to_json(report).dump(2) + "\n";
  // Locally first: an unreachable report URL never loses the report.
  if (auto e = write_root_file(root, "/var/lib/railyard/report.json", body, 0644); !e.empty())
    error("cannot write the report: " + e);
  else info("report written to /var/lib/railyard/report.json");
  if (auto e = write_root_file(root, "/var/lib/node_exporter/textfile_collector/railyard.prom",
                                     prometheus_text(report), 0644);
      !e.empty())
    warning("cannot write the node_exporter textfile: " + e);

  if (!join.report_url.empty()) {
    std::string token = join.token_file.empty() ? "" : read_token(join.token_file);
    // A token goes into a header line: one with spaces or control characters would split it.
    if (std::any_of(token.begin(), token.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
      warning(join.token_file + " holds white space or control characters, which no token has; posting without a "
                                "token");
      token.clear();
    }
    post_with_retries(body, join, token, fx, clock, out.log);
  }
  if (!report.passed()) {
    // A pass earlier in this boot no longer stands.
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(root.empty() ? "/" : root) / "run/railyard/joined", ec);
    if (!join.on_fail.empty()) {
      int rc = fx.run({"/bin/sh", "-c", join.on_fail});
      say(ok_or_error(rc), "on_fail command exited " + std::to_string(rc) + ": " + join.on_fail);
    }
    error("self-test failed: not joining; no unit started");
    return out;
  }
  bool units_ok = true;
  for (const auto& unit : join.units) {
    int rc = fx.run({"systemctl", "start", "--no-block", unit});
    say(ok_or_error(rc), "start " + unit + ": " + (rc == 0 ? "ok" : "systemctl exited " + std::to_string(rc)));
    units_ok = units_ok && rc == 0;
  }
  if (!units_ok) {
    error("a join unit did not start: not marking the node joined");
    return out;
  }
  if (auto e = write_root_file(root, "/run/railyard/joined", report.node + "\n", 0644); !e.empty()) {
    error("cannot mark the node joined: " + e);
    return out;
  }
  out.joined = true;
  info("joined: /run/railyard/joined");
  return out;
}

}  // namespace railyard
