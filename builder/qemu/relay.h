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

// A lab outage of the service (--fault controller-outage=S): whether this connection falls in
// it. The first connection starts it, by creating `state_file` with the time (CLOCK_MONOTONIC,
// which all of the host's processes share); every connection until `seconds` later, that one
// included, is refused: closed before anything reaches the service.
bool relay_in_outage(const std::string& state_file, int seconds);

}  // namespace railyard
