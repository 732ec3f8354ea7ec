// The exit codes of both programs and every subcommand (ARCHITECTURE.md): scripts and
// systemd units tell a failed node from a bad recipe by them.
#pragma once

namespace railyard {

inline constexpr int kExitOk = 0;        // done; every check passed
inline constexpr int kExitFailed = 1;    // a step or a check failed
inline constexpr int kExitBadInput = 2;  // the input (arguments, recipe, node identity, report) is wrong

}  // namespace railyard
