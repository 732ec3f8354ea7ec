// Small file operations on an image tree that several stages share.
#pragma once

#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "outcome.h"

namespace railyard {

Outcome<std::string> read_whole_file(const std::string& path);

// The one kernel version under ROOT/lib/modules (with its vmlinuz in ROOT/boot); an image
// with none or several is an error naming what was found.
Outcome<std::string> image_kernel_version(const std::string& root);

// `cp -a SRC/. DST` semantics (DST created): owners, modes, links, device nodes kept.
Status copy_tree(const std::string& src, const std::string& dst);

}  // namespace railyard
