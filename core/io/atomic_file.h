// Files written whole or not at all, for both programs: a temporary name in the same
// directory, flushed to disk, then renamed into place, so that readers (a node's agent, a
// fleet view, a PXE server) never see half a report, page, manifest or nccl.conf.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../outcome.h"

namespace railyard {

// Parent directories are created. The temporary's name starts with a dot, so that
// listings of reports skip it, and is unique to the writer.
Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode = 0644);

// The directory `tmp`, made whole beside `dir`, takes its place in one step: a rename when
// there is none, an exchange when there is (so the path is never missing), then the old one
// is removed; a note says so when it could not be.
Status replace_directory(const std::string& tmp, const std::string& dir, std::vector<std::string>& notes);

}  // namespace railyard
