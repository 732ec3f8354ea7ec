// Running the join units' systemctl and the on-fail command: fork/exec, no shell unless
// the command is a string the recipe gave.
#include "join/join.h"
#include "io/process.h"

namespace railyard {

namespace {

constexpr std::size_t kOutputLimit = 64 * 1024;

}  // namespace

int NativeJoinEffects::run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                           std::string* out) {
  ProcessResult r = run_process({.argv = argv, .env = env, .capture = out != nullptr, .capture_limit = kOutputLimit});
  if (out) *out = std::move(r.out);
  return r.status;
}

}  // namespace railyard
