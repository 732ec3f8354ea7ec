#include "vm_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace railyard {

Outcome<std::unique_ptr<VmProcess>> VmProcess::start(const std::vector<std::string>& argv,
                                                     const std::string& log_path) {
  if (argv.empty()) return Outcome<std::unique_ptr<VmProcess>>::fail("no command");
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return Outcome<std::unique_ptr<VmProcess>>::fail(log_path + ": " + std::strerror(errno));
  // Exec errors travel back over a close-on-exec pipe: nothing read means exec succeeded.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    ::close(log);
    return Outcome<std::unique_ptr<VmProcess>>::fail(std::string("pipe: ") + std::strerror(errno));
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(log), ::close(report[0]), ::close(report[1]);
    return Outcome<std::unique_ptr<VmProcess>>::fail(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive railyard, whatever ends it
    if (::getppid() != parent) ::_exit(127);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    int e = errno;
    ssize_t ignored = ::write(report[1], &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  ::close(log);
  ::close(report[1]);
  int e = 0;
  ssize_t n = ::read(report[0], &e, sizeof e);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof e)) {
    ::waitpid(pid, nullptr, 0);
    return Outcome<std::unique_ptr<VmProcess>>::fail(argv[0] + ": " + std::strerror(e));
  }
  return std::unique_ptr<VmProcess>(new VmProcess(pid));
}

VmProcess::~VmProcess() { stop(); }

void VmProcess::reap(bool block) {
  if (exit_code_ || signal_ || pid_ < 0) return;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r != pid_) return;
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
}

bool VmProcess::running() {
  reap(false);
  return !exit_code_ && !signal_;
}

bool VmProcess::wait_until(Clock::time_point deadline) {
  while (running()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

void VmProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  if (wait_until(Clock::now() + grace)) return;
  ::kill(pid_, SIGKILL);
  reap(true);
}

std::string VmProcess::how_it_ended() const {
  if (exit_code_) return "exited " + std::to_string(*exit_code_);
  if (signal_) return "killed by signal " + std::to_string(*signal_);
  return "";
}

}  // namespace railyard
