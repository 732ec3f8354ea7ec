// Running the join units' systemctl and the on-fail command: fork/exec, no shell unless
// the command is a string the recipe gave.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "join/join.h"

namespace railyard {

int NativeJoinEffects::run(const std::vector<std::string>& argv) {
  if (argv.empty()) return 127;
  pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}


}  // namespace railyard
