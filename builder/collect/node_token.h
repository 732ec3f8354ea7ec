// Per-node report tokens: a node may post only its own report. Each node's bearer token is
// derived from one receiver secret, HMAC-SHA256 over the node's lower-cased host name, in
// hex; `railyard node-token` prints it, `railyard collect --node-secret` checks it.
#pragma once

#include <string>
#include <string_view>

#include "outcome.h"

namespace railyard {

// 64 lower-case hex digits.
std::string node_token(std::string_view secret, std::string_view hostname);

// A secret file: its text without the trailing line end; at least 16 bytes, so that a
// token cannot be guessed from a short secret.
Outcome<std::string> read_node_secret(const std::string& path);

}  // namespace railyard
