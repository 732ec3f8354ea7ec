// Where reports come from: a file, an http(s) URL (libcurl, bounded in time and size), or
// every report under a directory (a receiver's DIR/<node>/<boot>.json, or a flat folder).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

inline constexpr std::size_t kMaxReportBytes = 64u << 20;  // far above any real report (~100 KiB)

bool is_url(const std::string& where);
Outcome<std::string> read_text_file(const std::string& path);
// The same into a buffer the caller reuses (the fleet reads thousands of files).
Status read_text_file(const std::string& path, std::string& into);
Outcome<std::string> fetch_url(const std::string& url, int timeout_ms = 20000, std::size_t max_bytes = kMaxReportBytes);
// A path or an http(s):// URL.
Outcome<std::string> read_report_text(const std::string& where);

// Every *.json file under `dir`, recursively, sorted; names starting with '.' (a receiver's
// temporary files) are left out.
Outcome<std::vector<std::string>> list_report_files(const std::string& dir);

}  // namespace railyard
