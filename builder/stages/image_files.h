// Small file operations on an image tree that several stages share.
#pragma once

#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

// Writes `text` to `path` through a temporary file in the same directory, then renames it:
// readers see the old content or the new, never a part. Parents are created.
Status write_file_atomic(const std::string& path, const std::string& text, unsigned mode = 0644);
Outcome<std::string> read_whole_file(const std::string& path);

// The one kernel version under ROOT/lib/modules (with its vmlinuz in ROOT/boot); an image
// with none or several is an error naming what was found.
Outcome<std::string> image_kernel_version(const std::string& root);

// `cp -a SRC/. DST` semantics (DST created): owners, modes, links, device nodes kept.
Status copy_tree(const std::string& src, const std::string& dst);

}  // namespace railyard
