// Files the agent writes, always under a root prefix (--root), each whole or not at all
// (core/io/atomic_file.h). A path must be plain (absolute, no "." or ".." components, no
// control characters), and where it lands must resolve inside the root even through
// symbolic links in the root's tree: checked at every write, not only when the recipe was
// validated.
#pragma once

#include <string>

#include "outcome.h"

namespace railyard {

// root + path, its parent directories created, or why it would land outside the root.
// Root "" or "/" is the live system: the path is only checked to be plain.
Outcome<std::string> resolve_under_root(const std::string& root, const std::string& path);

// Writes `content` to root + path with `mode`, creating directories. Returns an error
// message, or "" on success.
std::string write_root_file(const std::string& root, const std::string& path, const std::string& content, int mode);

// Whether root + path already holds exactly `content` with `mode` (false when absent or
// unreadable): what a second run checks before rewriting a file someone reads on change.
bool root_file_matches(const std::string& root, const std::string& path, const std::string& content, int mode);

}  // namespace railyard
