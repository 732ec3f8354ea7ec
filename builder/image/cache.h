// The stage cache: <root>/<stage>/<key>/{entry.json, output/}. Entries appear whole (filled
// under tmp/, then renamed into place) and are used only while their output still matches
// entry.json, so a build killed at any point leaves nothing that a later build would trust.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "build_plan.h"
#include "file_lock.h"
#include "openssl_hasher.h"
#include "outcome.h"

namespace railyard {

struct CacheLookup {
  bool hit = false;
  std::string output;      // the entry's output/ when hit
  std::string why_not;     // when missed: "absent", "incomplete: …", "corrupt: …"
  std::uint64_t size = 0;  // when hit: bytes of regular files in output/, as entry.json says
};

struct CacheListing {
  Stage stage = Stage::base;
  std::string key;
  std::string dir;
  bool complete = false;     // entry.json present and readable (its output is not verified here)
  std::int64_t created = 0;  // from entry.json
  std::uint64_t size = 0;
  std::string problem;
};

// downloads/: fetched archives and keys (kept by digest) and the packages apt downloaded
// (package_pool.h). Builds refetch whatever is missing, so all of it may go.
struct DownloadsUsage {
  std::size_t files = 0;
  std::uint64_t bytes = 0;
};

struct PruneReport {
  std::vector<CacheListing> removed;
  std::uint64_t freed = 0;
  std::size_t tmp_removed = 0;
  DownloadsUsage downloads_removed;
};

// One stage's output being written under tmp/; removed when dropped without a commit.
class PendingEntry {
 public:
  PendingEntry(PendingEntry&& other) noexcept;
  PendingEntry& operator=(PendingEntry&&) = delete;
  ~PendingEntry();
  const std::string& output() const { return output_; }  // where the stage writes

 private:
  friend class StageCache;
  PendingEntry(std::string dir, FileLock lock, Stage stage, std::string key);
  std::string dir_, output_;
  std::optional<FileLock> lock_;  // tells cleaners that a live build owns dir_
  Stage stage_;
  std::string key_;
};

class StageCache {
 public:
  StageCache(std::string root, OpenSslHasher& hasher);
  const std::string& root() const { return root_; }
  std::string entry_dir(Stage stage, const std::string& key) const;

  // Reads only: a dry run can ask without touching the cache.
  CacheLookup lookup(Stage stage, const std::string& key);
  Outcome<PendingEntry> begin(Stage stage, const std::string& key);
  // Records entry.json last, then renames into place; returns the entry's output/. When a
  // concurrent build committed the same key first, its (verified) entry wins.
  Outcome<std::string> commit(PendingEntry entry);

  // A build holds this for its whole run; prune refuses to run meanwhile. Empty when a
  // prune holds the cache.
  Outcome<std::optional<FileLock>> hold_shared();

  Outcome<std::vector<CacheListing>> list() const;
  // Removes what killed builds left in tmp/; directories of live builds are locked and kept.
  Outcome<std::size_t> clean_tmp();
  // Keeps the newest `keep` complete entries per stage, removes incomplete ones and tmp/,
  // and with `downloads` everything under downloads/ as well.
  Outcome<PruneReport> prune(std::size_t keep, bool downloads = false);
  DownloadsUsage downloads() const;

  std::function<std::int64_t()> clock;  // Unix seconds for entry.json; tests replace it

 private:
  Status discard(const std::string& dir);
  std::string root_;
  OpenSslHasher& hasher_;
};

// ${XDG_CACHE_HOME:-~/.cache}/railyard, or /var/cache/railyard for root; "" when neither
// variable is set (then --cache is required).
std::string default_cache_dir(bool is_root, const char* xdg_cache_home, const char* home);

}  // namespace railyard
