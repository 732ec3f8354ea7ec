// Files that hold a secret (a node-token secret, the munge key, a bearer token) as the
// host's other users see them.
#pragma once

#include <optional>
#include <string>

namespace railyard {

// What to tell the operator when the secret file `path` can be read by its group or by
// anyone: its mode and how to close it; nullopt when only its owner can, or when it cannot
// be read at all (reading it says why).
std::optional<std::string> readable_by_others(const std::string& path);

}  // namespace railyard
