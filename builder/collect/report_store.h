// The receiver's store: what a POSTed body is (a report to keep, or why not, as an HTTP
// status), and keeping it: DIR/<node>/<boot>.json, written whole (temporary + rename), so
// that a second report from the same boot replaces the first and other boots stay. Node
// names are kept in lower case (host names do not differ by case); no stored name starts
// with a dot. Beside each report, DIR/<node>/<boot>.received holds when this receiver took
// it (RFC 3339 UTC): the fleet views pick a node's latest report by that, not by the
// time the node claims.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace railyard {

struct StoreReply {
  // 201 stored; 400 malformed JSON; 403 another node's token, or a node the inventory does
  // not name; 422 not a report; 500 disk; 507 the store is at its size bound.
  int status = 0;
  std::string message;  // for the client (never the receiver's own paths)
  std::string log;      // for the receiver's log when it says more than `message`; else ""
  std::string reason;   // the refusal's reason as /metrics counts it ("" when stored)
  std::string stored;   // "<node>/<boot>.json" relative to DIR, when stored
  std::string node;
  std::string result;  // "pass" or "fail", when stored
  int pruned = 0;      // older boots of the node removed to keep StoreLimits::keep_boots
};

// What a receiver keeps, at most. Zero: no bound.
struct StoreLimits {
  std::size_t keep_boots = 0;   // the newest K reports of each node (by when they were stored)
  std::uint64_t max_bytes = 0;  // the reports and their receive times in DIR, in all
  // When set, only these nodes' reports are stored (lower case): --nodes INVENTORY.
  std::function<bool(const std::string& node)> known;
};

// A receiver's store: store_report() with the limits above, the bytes held accounted from
// a scan of DIR at start and kept up to date by every store and removal. Safe to call
// from the server's threads at once.
class ReportStore {
 public:
  ReportStore(std::string dir, StoreLimits limits);
  StoreReply store(std::string_view body, std::int64_t now,
                   const std::function<std::string(const std::string& node)>& authorize = {});
  std::uint64_t bytes() const;
  const StoreLimits& limits() const { return limits_; }

 private:
  int prune(const std::filesystem::path& node_dir);

  std::string dir_;
  StoreLimits limits_;
  mutable std::mutex mutex_;
  std::uint64_t bytes_ = 0;  // under mutex_
};

// "<node>/<boot>.json" for a report, or "" with `why` set: the node name must be a host
// name; the boot is host.boot_id, else started_at.
std::string store_path(const std::string& node, const std::string& boot_id, const std::string& started_at,
                       std::string& why);

inline constexpr const char* kReceivedSuffix = ".received";

// `now`: the receiver's clock, in seconds since the epoch; recorded as the receive time. A report is refused (422) when
// its started_at is not RFC 3339 or is more than a day ahead of `now`, and when its
// `result` contradicts its own checks.
// `authorize`, when given, decides whether the sender may post for the report's node (as
// stored: lower case): "" when it may, else why not (403).
StoreReply store_report(const std::string& dir, std::string_view body, std::int64_t now,
                        const std::function<std::string(const std::string& node)>& authorize = {});

// Removes the temporary files a receiver killed mid-write left in DIR/<node>/; how many.
int remove_leftover_temporaries(const std::string& dir);

}  // namespace railyard
