// One guest connection relayed to a TCP service on the host. QEMU user networking's
// guestfwd runs a command per connection with the connection as its stdin and stdout;
// railyard runs itself (`railyard qemu --relay HOST:PORT`) as that command, so that each of
// the agent's report POSTs reaches `railyard collect` on its own connection.
#pragma once

#include <string>

namespace railyard {

// Copies `in` → a new connection to `host_port` and that connection → `out` until both
// directions are closed. Returns 0, or 1 when the service cannot be reached (message on stderr).
int relay(const std::string& host_port, int in, int out);

}  // namespace railyard
