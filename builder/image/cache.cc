#include "cache.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <stdlib.h>

#include "cache_entry.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr const char* kEntryFile = "entry.json";
constexpr const char* kOutputDir = "output";

bool is_key(const std::string& s) {
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  return s.size() == 64 && std::all_of(s.begin(), s.end(), hex);
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Status write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::fail(p.string() + ": write failed");
  return success();
}

Outcome<std::string> make_temp_dir(const fs::path& parent, const std::string& prefix) {
  std::string templ = (parent / (prefix + ".XXXXXX")).string();
  if (!::mkdtemp(templ.data())) return Outcome<std::string>::fail(templ + ": " + std::strerror(errno));
  return templ;
}

}  // namespace

PendingEntry::PendingEntry(std::string dir, FileLock lock, Stage stage, std::string key)
    : dir_(std::move(dir)),
      output_(dir_ + "/" + kOutputDir),
      lock_(std::move(lock)),
      stage_(stage),
      key_(std::move(key)) {}

PendingEntry::PendingEntry(PendingEntry&& o) noexcept
    : dir_(std::move(o.dir_)),
      output_(std::move(o.output_)),
      lock_(std::move(o.lock_)),
      stage_(o.stage_),
      key_(std::move(o.key_)) {
  o.dir_.clear();
  o.lock_.reset();
}

PendingEntry::~PendingEntry() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);  // best effort: clean_tmp retries later
}

StageCache::StageCache(std::string root, OpenSslHasher& hasher) : root_(std::move(root)), hasher_(hasher) {
  clock = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
}

std::string StageCache::entry_dir(Stage stage, const std::string& key) const {
  return root_ + "/" + to_string(stage) + "/" + key;
}

CacheLookup StageCache::lookup(Stage stage, const std::string& key) {
  fs::path dir = entry_dir(stage, key);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {false, "", "absent"};
  auto text = read_file(dir / kEntryFile);
  if (!text) return {false, "", "incomplete: no entry.json"};
  auto record = parse_record(*text);
  if (!record.ok()) return {false, "", "corrupt: " + record.error()};
  if (record->stage != to_string(stage) || record->key != key)
    return {false, "", "corrupt: entry.json describes " + record->stage + "/" + record->key};
  auto scanned = scan_tree((dir / kOutputDir).string(), hasher_, TreeDigest::xxh128);
  if (!scanned.ok()) return {false, "", "corrupt: " + scanned.error()};
  auto same = compare_output(record->files, *scanned);
  if (!same.ok()) return {false, "", "corrupt: output/" + same.error()};
  return {true, (dir / kOutputDir).string(), "", record->size};
}

Outcome<PendingEntry> StageCache::begin(Stage stage, const std::string& key) {
  using Result = Outcome<PendingEntry>;
  fs::path tmp = fs::path(root_) / "tmp";
  std::error_code ec;
  fs::create_directories(tmp, ec);
  if (ec) return Result::fail(tmp.string() + ": " + ec.message());
  auto dir = make_temp_dir(tmp, to_string(stage));
  if (!dir.ok()) return Result::fail(dir.error());
  auto lock = FileLock::try_lock(*dir, FileLock::Mode::exclusive);
  if (!lock.ok() || !*lock) {  // a fresh directory nobody else knows of: only I/O can fail
    fs::remove_all(*dir, ec);
    return Result::fail(lock.ok() ? *dir + ": locked by another process" : lock.error());
  }
  PendingEntry entry(*dir, std::move(**lock), stage, key);
  fs::create_directory(entry.output(), ec);
  if (ec) return Result::fail(entry.output() + ": " + ec.message());
  return entry;
}

Outcome<std::string> StageCache::commit(PendingEntry entry) {
  using Result = Outcome<std::string>;
  std::string where = to_string(entry.stage_) + "/" + entry.key_.substr(0, kKeyPrefix);
  auto files = scan_tree(entry.output(), hasher_, TreeDigest::xxh128);
  if (!files.ok()) return Result::fail(files, "cache entry " + where);
  auto record = make_record(to_string(entry.stage_), entry.key_, clock(), std::move(*files));
  // Last inside the entry: an entry without entry.json is never used.
  auto written = write_file(fs::path(entry.dir_) / kEntryFile, to_json(record));
  if (!written.ok()) return Result::fail(written, "cache entry " + where);

  fs::path final_dir = entry_dir(entry.stage_, entry.key_);
  std::error_code ec;
  fs::create_directories(final_dir.parent_path(), ec);
  if (ec) return Result::fail(final_dir.parent_path().string() + ": " + ec.message());
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (std::rename(entry.dir_.c_str(), final_dir.c_str()) == 0) {
      entry.dir_.clear();  // in place now: nothing for the destructor to remove
      return (final_dir / kOutputDir).string();
    }
    if (errno != ENOTEMPTY && errno != EEXIST)
      return Result::fail("cache entry " + where + ": rename into place: " + std::strerror(errno));
    CacheLookup existing = lookup(entry.stage_, entry.key_);
    if (existing.hit) return existing.output;  // another build got there first; ours is dropped
    auto gone = discard(final_dir.string());   // a damaged entry: replace it
    if (!gone.ok()) return Result::fail(gone, "cache entry " + where);
  }
  return Result::fail("cache entry " + where + ": another build keeps replacing it");
}

Outcome<std::optional<FileLock>> StageCache::hold_shared() {
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (ec) return Outcome<std::optional<FileLock>>::fail(root_ + ": " + ec.message());
  return FileLock::try_lock(root_ + "/lock", FileLock::Mode::shared);
}

Status StageCache::discard(const std::string& dir) {
  // Renamed away first so that nobody sees a half-deleted entry under its key.
  fs::path tmp = fs::path(root_) / "tmp";
  std::error_code ec;
  fs::create_directories(tmp, ec);
  auto aside = make_temp_dir(tmp, "discard");
  if (!aside.ok()) return Status::fail(aside.error());
  fs::path target = fs::path(*aside) / "entry";
  if (std::rename(dir.c_str(), target.c_str()) != 0) return Status::fail(dir + ": " + std::strerror(errno));
  fs::remove_all(*aside, ec);
  if (ec) return Status::fail(*aside + ": " + ec.message());
  return success();
}

Outcome<std::vector<CacheListing>> StageCache::list() const {
  std::vector<CacheListing> out;
  std::error_code ec;
  for (Stage stage : kStages) {
    fs::path sdir = fs::path(root_) / to_string(stage);
    if (!fs::is_directory(sdir, ec)) continue;
    for (const auto& d : fs::directory_iterator(sdir, ec)) {
      std::string key = d.path().filename().string();
      if (!is_key(key) || !d.is_directory(ec)) continue;  // not ours: left alone
      CacheListing l;
      l.stage = stage;
      l.key = key;
      l.dir = d.path().string();
      auto text = read_file(d.path() / kEntryFile);
      auto record = text ? parse_record(*text) : Outcome<CacheEntryRecord>::fail("no entry.json");
      if (record.ok()) {
        l.complete = true;
        l.created = record->created;
        l.size = record->size;
      } else {
        l.problem = record.error();
      }
      out.push_back(std::move(l));
    }
    if (ec) return Outcome<std::vector<CacheListing>>::fail(sdir.string() + ": " + ec.message());
  }
  std::stable_sort(out.begin(), out.end(), [](const CacheListing& a, const CacheListing& b) {
    if (a.stage != b.stage) return a.stage < b.stage;
    if (a.created != b.created) return a.created > b.created;  // newest first
    return a.key < b.key;
  });
  return out;
}

Outcome<std::size_t> StageCache::clean_tmp() {
  fs::path tmp = fs::path(root_) / "tmp";
  std::error_code ec;
  std::size_t removed = 0;
  if (!fs::is_directory(tmp, ec)) return removed;
  for (const auto& d : fs::directory_iterator(tmp, ec)) {
    auto lock = FileLock::try_lock(d.path().string(), FileLock::Mode::exclusive);
    if (!lock.ok()) return Outcome<std::size_t>::fail(lock.error());
    if (!*lock) continue;  // a live build is writing it
    fs::remove_all(d.path(), ec);
    if (ec) return Outcome<std::size_t>::fail(d.path().string() + ": " + ec.message());
    ++removed;
  }
  if (ec) return Outcome<std::size_t>::fail(tmp.string() + ": " + ec.message());
  return removed;
}

DownloadsUsage StageCache::downloads() const {
  DownloadsUsage u;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(fs::path(root_) / "downloads", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
      ++u.files;
      u.bytes += it->file_size(ec);
    }
  return u;
}

Outcome<PruneReport> StageCache::prune(std::size_t keep, bool downloads) {
  using Result = Outcome<PruneReport>;
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return PruneReport{};
  auto lock = FileLock::try_lock(root_ + "/lock", FileLock::Mode::exclusive);
  if (!lock.ok()) return Result::fail(lock.error());
  if (!*lock) return Result::fail(root_ + ": a build is using the cache; prune again when it is done");
  auto entries = list();
  if (!entries.ok()) return Result::fail(entries.error());
  PruneReport report;
  std::vector<std::size_t> kept(kStages.size(), 0);
  for (const auto& e : *entries) {  // newest first within each stage
    if (e.complete && kept[static_cast<std::size_t>(e.stage)]++ < keep) continue;
    auto gone = discard(e.dir);
    if (!gone.ok()) return Result::fail(gone.error());
    report.removed.push_back(e);
    report.freed += e.size;
  }
  if (downloads) {
    report.downloads_removed = this->downloads();
    fs::path dir = fs::path(root_) / "downloads";
    if (fs::exists(dir, ec)) {
      auto gone = discard(dir.string());  // renamed into tmp/ first, like an entry
      if (!gone.ok()) return Result::fail(gone.error());
    }
  }
  auto tmp = clean_tmp();
  if (!tmp.ok()) return Result::fail(tmp.error());
  report.tmp_removed = *tmp;
  return report;
}

std::string default_cache_dir(bool is_root, const char* xdg_cache_home, const char* home) {
  if (is_root) return "/var/cache/railyard";
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg_cache_home && xdg_cache_home[0] == '/') return std::string(xdg_cache_home) + "/railyard";
  if (home && home[0] != '\0') return std::string(home) + "/.cache/railyard";
  return "";
}

}  // namespace railyard
