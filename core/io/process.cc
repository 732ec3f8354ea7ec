// fork/exec for both programs (core/io/process.h).
#include "io/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include <spdlog/spdlog.h>

extern char** environ;

namespace railyard {

namespace {

// The caller's environment with `extra` ("NAME=value") added or replacing.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view var(*e);
    std::string_view name = var.substr(0, var.find('=') + 1);
    bool replaced = std::any_of(extra.begin(), extra.end(),
                                [&](const std::string& add) { return add.compare(0, name.size(), name) == 0; });
    if (!replaced) env.emplace_back(var);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string errno_text(const std::string& what, int e) { return what + ": " + std::strerror(e); }

}  // namespace

Outcome<std::unique_ptr<Process>> Process::spawn(const ProcessSpec& spec, int stdout_fd) {
  using Result = Outcome<std::unique_ptr<Process>>;
  if (spec.argv.empty()) return Result::fail("no command");
  for (int fd : spec.pass_fds)
    if (fd <= STDERR_FILENO || ::fcntl(fd, F_GETFD) < 0)
      return Result::fail("descriptor " + std::to_string(fd) + " cannot be handed to " + spec.argv[0]);
  // Everything the child needs is made before the fork: after it, only system calls.
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = environment_with(spec.env);
  std::vector<char*> argv = pointers(args), envp = pointers(env);
  int log = -1;
  if (!spec.log_path.empty()) {
    log = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0) return Result::fail(errno_text(spec.log_path, errno));
  }
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // A failed exec's errno travels back over a close-on-exec pipe: nothing read, it ran.
  int report[2] = {-1, -1};
  if (devnull < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    int e = errno;
    if (log >= 0) ::close(log);
    if (devnull >= 0) ::close(devnull);
    return Result::fail(errno_text("pipe", e));
  }
  const pid_t parent = ::getpid();
  spdlog::debug("run: {}", shell_quote(spec.argv));
  pid_t pid = ::fork();
  if (pid == 0) {
    if (spec.die_with_caller) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the caller ended before prctl
    }
    ::dup2(devnull, STDIN_FILENO);
    if (stdout_fd >= 0) ::dup2(stdout_fd, STDOUT_FILENO);
    else if (log >= 0) ::dup2(log, STDOUT_FILENO);
    if (log >= 0) ::dup2(log, STDERR_FILENO);
    // Nothing else we hold (or inherited: a test runner's or a lock's descriptors) reaches the
    // child: mmdebstrap hands apt a descriptor number, and dash cannot redirect to one above 9.
    // Marked close-on-exec rather than closed, so that the report pipe still works.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    for (int fd : spec.pass_fds) ::fcntl(fd, F_SETFD, 0);
    ::execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  int fork_errno = errno;
  if (log >= 0) ::close(log);
  ::close(devnull);
  ::close(report[1]);
  if (pid < 0) {
    ::close(report[0]);
    return Result::fail(errno_text("fork", fork_errno));
  }
  int e = 0;
  ssize_t n;
  while ((n = ::read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof e)) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return Result::fail(errno_text(spec.argv[0], e));
  }
  return std::unique_ptr<Process>(new Process(pid));
}

Outcome<std::unique_ptr<Process>> Process::start(const ProcessSpec& spec) {
  if (spec.capture || spec.timeout.count() != 0)
    return Outcome<std::unique_ptr<Process>>::fail("a started process is neither captured nor timed: run_process is");
  return spawn(spec, -1);
}

Process::~Process() { stop(); }

void Process::reap(bool block) {
  if (status_ || pid_ < 0) return;
  int status = 0;
  pid_t r;
  while ((r = ::waitpid(pid_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r != pid_) return;
  signalled_ = WIFSIGNALED(status);
  status_ = signalled_ ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

bool Process::running() {
  reap(false);
  return !status_;
}

bool Process::wait_until(Clock::time_point deadline) {
  while (running()) {
    auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(20)));
  }
  return true;
}

void Process::stop(std::chrono::milliseconds grace) {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  if (!wait_until(Clock::now() + grace)) kill();
}

void Process::kill() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  reap(true);
}

std::string Process::how_it_ended() const {
  if (!status_) return "";
  if (signalled_) return "killed by signal " + std::to_string(*status_ - 128);
  return "exited " + std::to_string(*status_);
}

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  int out[2] = {-1, -1};
  if (spec.capture && ::pipe2(out, O_CLOEXEC) != 0) {
    result.error = errno_text("pipe", errno);
    return result;
  }
  auto started = Process::spawn(spec, out[1]);
  if (out[1] >= 0) ::close(out[1]);
  if (!started.ok()) {
    if (out[0] >= 0) ::close(out[0]);
    result.error = started.error();
    return result;
  }
  Process& child = **started;
  const bool limited = spec.timeout.count() > 0;
  const auto deadline = Process::Clock::now() + spec.timeout;
  auto left_ms = [&]() -> int {  // for poll(2): -1 waits for ever
    if (!limited) return -1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Process::Clock::now()).count();
    return static_cast<int>(std::max<decltype(left)>(left, 0));
  };
  bool timed_out = false;
  if (spec.capture) {
    char buf[65536];
    for (;;) {
      pollfd p{out[0], POLLIN, 0};
      int ready = ::poll(&p, 1, left_ms());
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        timed_out = true;
        break;
      }
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (result.out.size() < spec.capture_limit)
        result.out.append(buf, std::min(static_cast<std::size_t>(n), spec.capture_limit - result.out.size()));
    }
    ::close(out[0]);
  }
  if (!limited) child.reap(true);
  else if (timed_out || !child.wait_until(deadline)) timed_out = true;
  if (timed_out && child.running()) {
    child.kill();
    result.status = 124;
    result.error = "timed out after " + std::to_string(spec.timeout.count()) + " ms";
    return result;
  }
  result.status = *child.status();
  if (child.signalled_) result.error = child.how_it_ended();
  return result;
}

std::string shell_quote(const std::vector<std::string>& argv) {
  static constexpr std::string_view kPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%";
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (!a.empty() && a.find_first_not_of(kPlain) == std::string::npos) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace railyard
