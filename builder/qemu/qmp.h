// A few commands over QEMU's machine protocol (QMP) socket: what railyard qemu changes in
// a VM while it is still stopped (a rail's link down) before letting it run.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "outcome.h"

namespace railyard {

// Connects to `socket_path` (waiting up to `timeout_ms` for QEMU to create it), negotiates,
// then runs each command ({"execute": ..., "arguments": ...}) in order; fails on the first
// error QEMU answers, naming the command.
Status qmp_run(const std::string& socket_path, const std::vector<nlohmann::json>& commands, int timeout_ms);

// {"execute": "set_link", "arguments": {"name": device, "up": up}}
nlohmann::json qmp_set_link(const std::string& device, bool up);

}  // namespace railyard
