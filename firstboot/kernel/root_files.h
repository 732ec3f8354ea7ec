// Files the agent writes, always under a root prefix, each atomically (temp file + rename).
#pragma once

#include <string>

namespace railyard {

// Writes `content` to root + path with `mode`, creating directories. Returns an error
// message, or "" on success.
std::string write_file_atomically(const std::string& root, const std::string& path, const std::string& content,
                                  int mode);

}  // namespace railyard
