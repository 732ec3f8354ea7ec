// A stage cache entry's record (entry.json): what the stage produced, so that an entry is
// used only when its output is still exactly that.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outcome.h"
#include "tree_scan.h"

namespace railyard {

// 2: file digests are XXH3-128 (content_digest.h), no longer SHA-256.
inline constexpr int kCacheEntrySchema = 2;

struct CacheEntryRecord {
  std::string stage;
  std::string key;
  std::int64_t created = 0;  // Unix seconds; prune keeps the newest
  std::uint64_t size = 0;    // bytes of regular files in output/
  std::vector<TreeEntry> files;
};

CacheEntryRecord make_record(std::string stage, std::string key, std::int64_t created, std::vector<TreeEntry> files);
std::string to_json(const CacheEntryRecord& r);
Outcome<CacheEntryRecord> parse_record(const std::string& json);

// Success when `scanned` (the output as it is now) is what `recorded` says, else the first
// difference: a missing, extra, resized, altered or retyped file.
Status compare_output(const std::vector<TreeEntry>& recorded, const std::vector<TreeEntry>& scanned);

}  // namespace railyard
