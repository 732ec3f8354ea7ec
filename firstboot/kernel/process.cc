// fork/exec of a program with its standard output captured (firstboot/kernel/process.h).
#include "kernel/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string_view>

extern char** environ;

namespace railyard {

int run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, std::string* out,
                std::size_t limit, int timeout_ms) {
  if (argv.empty()) return 127;
  // Everything the child needs is made before the fork: after it, only exec and _exit.
  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e) {
    std::string_view var(*e);
    bool replaced = false;
    for (const auto& add : env)
      replaced = replaced || var.substr(0, var.find('=') + 1) == add.substr(0, add.find('=') + 1);
    if (!replaced) environment.emplace_back(var);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int pipe_fds[2] = {-1, -1};
  if (out && ::pipe2(pipe_fds, O_CLOEXEC) != 0) return 127;
  pid_t pid = ::fork();
  if (pid < 0) {
    if (out) ::close(pipe_fds[0]), ::close(pipe_fds[1]);
    return 127;
  }
  if (pid == 0) {
    if (out && ::dup2(pipe_fds[1], STDOUT_FILENO) < 0) ::_exit(127);
    ::execvpe(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto left_ms = [&]() -> int {
    if (timeout_ms <= 0) return -1;  // poll(2): no limit
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
  };
  bool timed_out = false;
  if (out) {
    ::close(pipe_fds[1]);
    out->clear();
    char buf[4096];
    for (;;) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      int ready = ::poll(&p, 1, left_ms());
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        timed_out = true;
        break;
      }
      ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      // Read to the end whatever the limit, so that the child never blocks on a full pipe.
      if (out->size() < limit)
        out->append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), limit - out->size()));
    }
    ::close(pipe_fds[0]);
  }
  int status = 0;
  for (;;) {
    if (timed_out) {  // still running at the deadline: killed, then reaped
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return 124;
    }
    pid_t done = ::waitpid(pid, &status, timeout_ms <= 0 ? 0 : WNOHANG);
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) return 127;
    if (done == pid) break;
    if (left_ms() == 0) timed_out = true;
    else ::usleep(20000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace railyard
