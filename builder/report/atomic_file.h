// Files written whole or not at all: a temporary name in the same directory, flushed to
// disk, then renamed into place, so that readers never see half a report or page.
#pragma once

#include <string>
#include <string_view>

#include "outcome.h"

namespace railyard {

Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode = 0644);

}  // namespace railyard
