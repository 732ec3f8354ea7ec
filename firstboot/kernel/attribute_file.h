// Kernel attribute files (sysfs, configfs, procfs) and the agent's own small files, read and
// written the way the kernel wants them: read whole, trailing newline and NUL dropped;
// an attribute set with one write; an ordinary file replaced whole (root_files.h).
#pragma once

#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

Outcome<std::string> read_attribute(const std::string& path);
// One write(2) of `value`, as `echo -n value > path` does.
Status write_attribute(const std::string& path, const std::string& value);
// An ordinary file holding `value` and a newline, written whole or not at all.
Status write_small_file(const std::string& path, const std::string& value);
// The names in a directory (a device's ports, configfs objects), sorted.
Outcome<std::vector<std::string>> list_names(const std::string& path);

}  // namespace railyard
