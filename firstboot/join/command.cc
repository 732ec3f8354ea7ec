// Running the join units' systemctl and the on-fail command: fork/exec, no shell unless
// the command is a string the recipe gave.
#include "join/join.h"
#include "kernel/process.h"

namespace railyard {

namespace {

constexpr std::size_t kOutputLimit = 64 * 1024;

}  // namespace

int NativeJoinEffects::run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                           std::string* out) {
  return run_process(argv, env, out, kOutputLimit);
}

}  // namespace railyard
