#include "join/join.h"

#include <algorithm>
#include <filesystem>

#include "kernel/root_files.h"

namespace railyard {

namespace {

std::string post_with_retries(const std::string& body, const JoinSpec& join, const std::string& token, JoinEffects& fx,
                              Clock& clock, std::vector<std::string>& log) {
  std::string err;
  int delay_ms = 1000;
  for (int attempt = 0; attempt <= join.report_retries; ++attempt) {
    if (attempt > 0) {
      clock.sleep(std::chrono::milliseconds(delay_ms));
      delay_ms = std::min(delay_ms * 2, 30000);  // bounded backoff: never hold a boot for long
    }
    err = fx.post(join.report_url, body, join.ca_file, token, 10000);
    if (err.empty()) {
      log.push_back("report sent to " + join.report_url);
      return "";
    }
    log.push_back("report POST attempt " + std::to_string(attempt + 1) + " failed: " + err);
  }
  return err;
}

}  // namespace

JoinOutcome report_and_join(const Report& report, const JoinSpec& join, const std::string& root, JoinEffects& fx,
                            std::string (*read_token)(const std::string& path), Clock& clock) {
  JoinOutcome out;
  std::string body = to_json(report).dump(2) + "\n";
  // Locally first: an unreachable report URL never loses the report.
  if (auto e = write_root_file(root, "/var/lib/railyard/report.json", body, 0644); !e.empty())
    out.log.push_back("cannot write the report: " + e);
  else out.log.push_back("report written to /var/lib/railyard/report.json");
  if (auto e = write_root_file(root, "/var/lib/node_exporter/textfile_collector/railyard.prom",
                                     prometheus_text(report), 0644);
      !e.empty())
    out.log.push_back("cannot write the node_exporter textfile: " + e);

  if (!join.report_url.empty()) {
    std::string token = join.token_file.empty() ? "" : read_token(join.token_file);
    // A token goes into a header line: one with spaces or control characters would split it.
    if (std::any_of(token.begin(), token.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
      out.log.push_back(join.token_file + " holds white space or control characters, which no token has; "
                        "posting without a token");
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
      out.log.push_back("on_fail command exited " + std::to_string(rc) + ": " + join.on_fail);
    }
    out.log.push_back("self-test failed: not joining; no unit started");
    return out;
  }
  bool units_ok = true;
  for (const auto& unit : join.units) {
    int rc = fx.run({"systemctl", "start", "--no-block", unit});
    out.log.push_back("start " + unit + ": " + (rc == 0 ? "ok" : "systemctl exited " + std::to_string(rc)));
    units_ok = units_ok && rc == 0;
  }
  if (!units_ok) {
    out.log.push_back("a join unit did not start: not marking the node joined");
    return out;
  }
  if (auto e = write_root_file(root, "/run/railyard/joined", report.node + "\n", 0644); !e.empty()) {
    out.log.push_back("cannot mark the node joined: " + e);
    return out;
  }
  out.joined = true;
  out.log.push_back("joined: /run/railyard/joined");
  return out;
}

}  // namespace railyard
