#include "command.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

extern char** environ;

namespace railyard {

namespace {

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += "\n    " + all[i];
  return out;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos && extra.count(kv.substr(0, eq))) continue;
    env.push_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

}  // namespace

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                   "-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

Outcome<std::string> ProcessRunner::execute(const Command& cmd, bool capture_stdout) {
  if (cmd.argv.empty()) return Outcome<std::string>::fail("empty command");
  int log = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return Outcome<std::string>::fail(log_path_ + ": " + std::strerror(errno));
  std::string header = "\n$ " + shell_quote(cmd.argv) + "\n";
  (void)!::write(log, header.data(), header.size());

  int pipefd[2] = {-1, -1};
  if (capture_stdout && ::pipe2(pipefd, O_CLOEXEC) != 0) {
    ::close(log);
    return Outcome<std::string>::fail(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> env = environment_with(cmd.env);
  std::vector<char*> argv, envp;
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  const auto started = std::chrono::steady_clock::now();
  spdlog::debug("run: {}", shell_quote(cmd.argv));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    return Outcome<std::string>::fail(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(capture_stdout ? pipefd[1] : log, 1);
    ::dup2(log, 2);
    // Nothing else the builder holds (or inherited: a test runner's or a lock's descriptors)
    // reaches the command: mmdebstrap hands apt a descriptor number, and dash cannot
    // redirect to one above 9.
    ::close_range(3, ~0U, 0);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::string msg = std::string(argv[0]) + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  std::string out;
  if (capture_stdout) {
    ::close(pipefd[1]);
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(pipefd[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipefd[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // How long it took, under its output: where a slow build spends its time.
  char took[64];
  int n = std::snprintf(took, sizeof took, "# took %.2f s\n",
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  (void)!::write(log, took, static_cast<std::size_t>(n));
  ::close(log);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return out;
  std::string how =
      WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "signal " + std::to_string(WTERMSIG(status));
  return Outcome<std::string>::fail((cmd.what.empty() ? cmd.argv[0] : cmd.what) + " failed (" + how +
                                    "): " + shell_quote(cmd.argv) + "\n  last lines of " + log_path_ + ":" +
                                    tail_of(log_path_, 15));
}

Status ProcessRunner::run(const Command& cmd) {
  auto r = execute(cmd, false);
  if (!r.ok()) return Status::fail(r.error());
  return success();
}

Outcome<std::string> ProcessRunner::capture(const Command& cmd) { return execute(cmd, true); }

Command in_image(const std::string& root, std::vector<std::string> argv, std::string what) {
  // $0 is the root, "$@" the command; `set -e` stops at the first failed mount.
  static const char* script =
      "set -e; r=$0; "
      "mount -t proc proc \"$r/proc\"; "
      "mount -t sysfs -o ro sysfs \"$r/sys\"; "
      "mount --rbind /dev \"$r/dev\"; mount --make-rslave \"$r/dev\"; "
      "exec chroot \"$r\" \"$@\"";
  Command c;
  c.argv = {"unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, root};
  for (auto& a : argv) c.argv.push_back(std::move(a));
  c.env = {{"DEBIAN_FRONTEND", "noninteractive"}, {"LC_ALL", "C.UTF-8"}, {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}};
  c.what = std::move(what);
  return c;
}

}  // namespace railyard
