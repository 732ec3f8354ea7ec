// Running a program: fork/exec, no shell, its standard output captured when asked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace railyard {

// Runs argv (looked up in PATH) with `env` ("NAME=value") added to the agent's environment;
// returns the exit status (127: could not be run; 128 + N: killed by signal N) and, when
// `out` is given, the first `limit` bytes of its standard output.
// With `timeout_ms` > 0 a program still running then is killed (SIGKILL) and 124 returned,
// as timeout(1) does: nothing it runs can hang the agent.
int run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, std::string* out,
                std::size_t limit, int timeout_ms = 0);

}  // namespace railyard
