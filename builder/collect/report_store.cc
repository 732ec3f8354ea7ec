#include "collect/report_store.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "net.h"
#include "io/atomic_file.h"
#include "report/report_reader.h"
#include "text.h"

namespace railyard {

namespace {

bool only(const std::string& s, std::string_view allowed_punct) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && allowed_punct.find(c) == std::string_view::npos) return false;
  return true;
}

}  // namespace

std::string store_path(const std::string& node, const std::string& boot_id, const std::string& started_at,
                       std::string& why) {
  if (node.empty()) {
    why = "the report names no node (neither 'node' nor host.hostname)";
    return "";
  }
  if (auto bad = check_hostname(node)) {
    why = "unsafe node name: " + *bad;
    return "";
  }
  std::string boot;
  auto plain_start = [](const std::string& s) { return std::isalnum(static_cast<unsigned char>(s[0])) != 0; };
  if (!boot_id.empty() && boot_id.size() <= 64 && plain_start(boot_id) && only(boot_id, "-")) boot = boot_id;
  else if (!started_at.empty() && started_at.size() <= 64 && plain_start(started_at) && only(started_at, "-:.+")) {
    boot = started_at;
    for (char& c : boot)
      if (c == ':') c = '-';
  } else {
    why = "the report has neither a host.boot_id nor a started_at (RFC 3339) to tell its boot apart";
    return "";
  }
  std::string lower = node;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower + "/" + boot + ".json";
}

namespace {

StoreReply refused(int status, const char* reason, std::string message, std::string log = "") {
  StoreReply r;
  r.status = status;
  r.reason = reason;
  r.message = std::move(message);
  r.log = std::move(log);
  return r;
}

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The bytes a file holds, or 0 when there is none.
std::uint64_t file_bytes(const std::filesystem::path& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

}  // namespace

ReportStore::ReportStore(std::string dir, StoreLimits limits) : dir_(std::move(dir)), limits_(std::move(limits)) {
  if (!limits_.max_bytes) return;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    if (it->is_regular_file(ec)) bytes_ += file_bytes(it->path());
}

std::uint64_t ReportStore::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

StoreReply ReportStore::store(std::string_view body, std::int64_t now,
                              const std::function<std::string(const std::string& node)>& authorize) {
  ReportReader reader;
  // Who may post for this node, before anything else is said of the report, and before
  // the body is read whole: a body sent with another node's token costs one skim.
  bool identified = false;
  auto identify = [&](const std::string& name) -> std::optional<StoreReply> {
    if (identified || check_hostname(name)) return std::nullopt;
    identified = true;
    std::string node = lower_case(name);
    if (authorize)
      if (std::string why = authorize(node); !why.empty()) return refused(403, "token", why);
    if (limits_.known && !limits_.known(node))
      return refused(403, "unknown_node", "node " + node + " is not in this receiver's inventory (--nodes)");
    return std::nullopt;
  };
  if (auto name = reader.node_name(body))
    if (auto no = identify(*name)) return *no;
  // Then whole: the grammar in full, then the report's contract. The values a report only
  // carries (the plan, changes, inventory) are checked, not built.
  auto report = reader.checked(body);
  if (!report.ok()) {
    bool malformed = reader.fault() == ReportFault::malformed;
    return malformed ? refused(400, "malformed", "malformed JSON: " + report.error())
                     : refused(422, "not_a_report", report.error());
  }
  if (auto no = identify(report->name())) return *no;
  const std::string& started = report->report.started_at;
  if (!started.empty()) {
    auto at = parse_rfc3339(started);
    if (!at)
      return refused(
          422, "not_a_report",
          "started_at '" + escape_control(started) + "' is not an RFC 3339 date-time (e.g. 2026-03-10T08:01:00Z)");
    if (*at > now + 86400)
      return refused(422, "not_a_report",
                     "started_at " + escape_control(started) + " is more than a day ahead of this receiver's clock");
  }
  if (std::string c = report->contradiction(); !c.empty()) return refused(422, "not_a_report", c);
  std::string why;
  std::string rel = store_path(report->name(), report->report.host.boot_id, report->report.started_at, why);
  if (rel.empty()) return refused(422, "not_a_report", why);

  std::filesystem::path target = std::filesystem::path(dir_) / rel;
  std::filesystem::path received = target;
  received.replace_extension(kReceivedSuffix);
  std::string received_text = format_rfc3339(now) + "\n";
  // The client learns what went wrong with its report, never where this receiver keeps it.
  auto disk = [&](const std::string& error) {
    return refused(500, "disk", "the receiver could not store " + rel + " (its log says why)", error);
  };
  // Room for it, reserved before the write: a second report of the same boot replaces the
  // first, whose bytes are given back.
  std::int64_t added = 0;
  if (limits_.max_bytes) {
    std::lock_guard lock(mutex_);
    added = static_cast<std::int64_t>(body.size() + received_text.size()) -
            static_cast<std::int64_t>(file_bytes(target) + file_bytes(received));
    if (added > 0 && bytes_ + static_cast<std::uint64_t>(added) > limits_.max_bytes)
      return refused(507, "store_full",
                     "the receiver holds " + std::to_string(bytes_) +
                         " bytes of reports, its bound (--max-store-bytes " + std::to_string(limits_.max_bytes) +
                         "); nothing more is stored until reports are removed");
    bytes_ = static_cast<std::uint64_t>(static_cast<std::int64_t>(bytes_) + added);
  }
  auto give_back = [&] {
    if (!limits_.max_bytes) return;
    std::lock_guard lock(mutex_);
    bytes_ = static_cast<std::uint64_t>(std::max<std::int64_t>(0, static_cast<std::int64_t>(bytes_) - added));
  };
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    give_back();
    return disk(target.parent_path().string() + ": " + ec.message());
  }
  // The report, then when it came: a receiver killed in between leaves a report without a
  // receive time, which the fleet views take from the file's modification time.
  Status st = write_file_atomically(target.string(), body);
  if (st.ok()) st = write_file_atomically(received.string(), received_text);
  if (!st.ok()) {
    give_back();
    return disk(st.error());
  }
  StoreReply reply;
  reply.status = 201;
  reply.stored = rel;
  reply.node = rel.substr(0, rel.find('/'));
  reply.result = report->passed ? "pass" : "fail";
  reply.message = "stored " + rel;
  if (limits_.keep_boots) reply.pruned = prune(target.parent_path());
  return reply;
}

int ReportStore::prune(const std::filesystem::path& node_dir) {
  // The node's reports, newest first by when they were stored (the file's modification
  // time; the name breaks a tie); those past the newest keep_boots go with their receive
  // times. Under the lock, so that two stores for one node do not both count the same.
  std::lock_guard lock(mutex_);
  struct Kept {
    std::filesystem::file_time_type at;
    std::filesystem::path path;
  };
  std::vector<Kept> reports;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(node_dir, ec)) {
    std::string name = f.path().filename().string();
    if (name.empty() || name[0] == '.' || !name.ends_with(".json") || !f.is_regular_file(ec)) continue;
    reports.push_back({f.last_write_time(ec), f.path()});
  }
  if (reports.size() <= limits_.keep_boots) return 0;
  std::sort(reports.begin(), reports.end(),
            [](const Kept& a, const Kept& b) { return a.at != b.at ? a.at > b.at : a.path > b.path; });
  int removed = 0;
  for (std::size_t i = limits_.keep_boots; i < reports.size(); ++i) {
    std::filesystem::path received = reports[i].path;
    received.replace_extension(kReceivedSuffix);
    std::uint64_t freed = file_bytes(reports[i].path) + file_bytes(received);
    if (!std::filesystem::remove(reports[i].path, ec)) continue;
    std::filesystem::remove(received, ec);
    bytes_ -= std::min(bytes_, freed);
    ++removed;
  }
  return removed;
}

StoreReply store_report(const std::string& dir, std::string_view body, std::int64_t now,
                        const std::function<std::string(const std::string& node)>& authorize) {
  return ReportStore(dir, {}).store(body, now, authorize);
}

int remove_leftover_temporaries(const std::string& dir) {
  // write_file_atomically's temporaries: ".<name>.XXXXXX" beside the file (core/io/atomic_file.cc).
  int removed = 0;
  std::error_code ec;
  for (const auto& node : std::filesystem::directory_iterator(dir, ec)) {
    if (!node.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(node.path(), ec)) {
      std::string name = f.path().filename().string();
      std::size_t dot = name.rfind('.');
      if (name.size() < 9 || name[0] != '.' || dot == std::string::npos || name.size() - dot != 7) continue;
      std::string_view stem(name.data(), dot);
      if ((stem.ends_with(".json") || stem.ends_with(kReceivedSuffix)) && f.is_regular_file() &&
          std::filesystem::remove(f.path(), ec))
        ++removed;
    }
  }
  return removed;
}

}  // namespace railyard
