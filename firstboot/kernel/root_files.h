// Files the agent writes, always under a root prefix (--root), each whole or not at all
// (core/io/atomic_file.h).
#pragma once

#include <string>

namespace railyard {

// Writes `content` to root + path with `mode`, creating directories. Returns an error
// message, or "" on success.
std::string write_root_file(const std::string& root, const std::string& path, const std::string& content, int mode);

}  // namespace railyard
