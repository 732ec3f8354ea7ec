// Test helpers for report and join: RecordingJoin (JoinEffects that record every POST and
// command with its environment and answer as told, systemctl's unit states included, and a FakeClock for the waits), a
// token reader for report_and_join's callback, and TempRoot (a fresh directory per test, removed afterwards) to write
// the report under.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "join/join.h"
#include "support/fake_clock.h"

namespace railyard::test {

class RecordingJoin : public JoinEffects {
 public:
  struct Post {
    std::string url;
    std::string body;
    std::string ca_file;
    std::string bearer_token;
    int timeout_ms = 0;
  };
  std::vector<Post> posts;
  // The answers of successive POSTs ("" is success); past the end, `post_default`.
  std::vector<std::string> post_answers;
  std::string post_default;
  std::vector<std::vector<std::string>> commands;  // every argv run, in order
  std::vector<std::vector<std::string>> envs;      // the environment each was given
  std::map<std::string, int> exit_codes;           // by the argv's last word (a unit, a shell command), or
                                                   // by any of the units of a systemctl start or show; default 0
  // What `systemctl show ... UNIT...` prints for each unit, call by call (the last one stays);
  // by default the unit is active at once.
  std::map<std::string, std::vector<std::string>> unit_states;
  // What other commands print, by argv[0] ("sinfo"), call by call (the last one stays).
  std::map<std::string, std::vector<std::string>> outputs;
  FakeClock clock;                                              // what report_and_join waits on
  std::function<void(const std::vector<std::string>&)> on_run;  // called before each command is answered

  std::string post(const std::string& url, const std::string& body, const std::string& ca_file,
                   const std::string& bearer_token, int timeout_ms) override {
    std::size_t n = posts.size();
    posts.push_back({url, body, ca_file, bearer_token, timeout_ms});
    return n < post_answers.size() ? post_answers[n] : post_default;
  }
  int run(const std::vector<std::string>& argv, const std::vector<std::string>& env, std::string* out) override {
    commands.push_back(argv);
    envs.push_back(env);
    if (on_run) on_run(argv);
    if (argv.empty()) return 127;
    // systemctl's units: every word after the verb that is no option.
    std::vector<std::string> units;
    if (argv.size() > 1 && argv[0] == "systemctl")
      for (std::size_t i = 2; i < argv.size(); ++i)
        if (argv[i].rfind("--", 0) != 0) units.push_back(argv[i]);
    if (out) {
      out->clear();
      if (argv.size() > 1 && argv[0] == "systemctl" && argv[1] == "show") {
        // One block per unit, in the order asked, a blank line between (as systemctl prints).
        for (const auto& unit : units) {
          auto& states = unit_states[unit];
          if (!out->empty()) *out += "\n";
          *out += states.empty() ? "ActiveState=active\nSubState=running\nResult=success\nConditionResult=yes\n"
                                 : states.front();
          if (states.size() > 1) states.erase(states.begin());
        }
      } else if (auto o = outputs.find(argv[0]); o != outputs.end() && !o->second.empty()) {
        *out = o->second.front();
        if (o->second.size() > 1) o->second.erase(o->second.begin());
      }
    }
    // systemctl with several units exits with the first unit's code that is not 0.
    if (units.size() > 1 && (argv[1] == "start" || argv[1] == "show"))
      for (const auto& unit : units)
        if (auto it = exit_codes.find(unit); it != exit_codes.end() && it->second != 0) return it->second;
    auto it = exit_codes.find(argv.back());
    return it == exit_codes.end() ? 0 : it->second;
  }
  // The `systemctl start` commands, in order.
  std::vector<std::vector<std::string>> starts() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& c : commands)
      if (c.size() > 1 && c[0] == "systemctl" && c[1] == "start") out.push_back(c);
    return out;
  }
  // Every wait between POST attempts, in ms, in order.
  std::vector<int> sleeps() const {
    std::vector<int> out;
    for (auto d : clock.sleeps) out.push_back(static_cast<int>(d.count()));
    return out;
  }
};

// report_and_join's token reader: records the paths asked for, answers `token`.
struct TokenReader {
  static inline std::vector<std::string> paths;
  static inline std::string token = "s3cret-token";
  static std::string read(const std::string& path) {
    paths.push_back(path);
    return token;
  }
  static void reset() {
    paths.clear();
    token = "s3cret-token";
  }
};

// A fresh, empty directory under the system's temporary directory, removed with everything
// in it when the object goes.
class TempRoot {
 public:
  TempRoot() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("railyard-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  std::string str() const { return path_.string(); }
  // root + an absolute path of the node.
  std::filesystem::path operator/(const std::string& node_path) const {
    return path_ / std::filesystem::path(node_path).relative_path();
  }
  bool exists(const std::string& node_path) const { return std::filesystem::exists(*this / node_path); }
  // The whole file at the node path; "" when it cannot be read.
  std::string read(const std::string& node_path) const {
    std::ifstream in(*this / node_path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace railyard::test
