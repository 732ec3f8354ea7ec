// Reading reports back, with one reader for every host view: the fleet summary's digest
// of a report (identity, result, failing checks, phase timings, what the node runs; the
// plan, changes and inventory are stepped over unread) and the whole report, back into the
// core model, for the views of one node and for the receiver.
//
// Both are the same walk over simdjson's On-Demand reader, so the contract is checked in
// one place: `schema`, `node`, `result` and `checks` present and of their types, each
// check's status one of the five, `schema` no newer than this railyard reads. A whole
// report is checked against the JSON grammar in full (the plan, changes and inventory are
// handed to nlohmann::json whole; unknown keys are checked too). A digest checks the
// grammar of what it reads, and of what it steps over the strings, UTF-8 and brackets:
// enough to refuse a truncated or corrupt file, which is what a fleet directory holds when
// it holds something wrong (reports arrive through the receiver, which reads them whole).
//
// Errors say what is wrong and where: "line 3, column 7: ..." or "not a railyard report:
// no 'checks'".
#pragma once

#include <cstdint>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outcome.h"
#include "report.h"
#include "topology.h"

namespace railyard {

// The most rails a digest reads LLDP for.
inline constexpr int kMaxDigestRails = 64;

struct FailedCheck {
  CheckId id;
  CheckStatus status = CheckStatus::fail;
};

struct ReportDigest {
  std::string path;  // where it was read from
  int schema = 0;
  std::string node;  // `node`, or host.hostname when the report has no node identity
  std::string recipe;
  bool passed = false;     // the report's own `result`
  std::string started_at;  // as the node claims it
  // When a receiver took it (DIR/<node>/<boot>.received, by `railyard collect`), else the
  // file's modification time; seconds since the epoch. Set by read_fleet, not the reader.
  std::int64_t received_at = 0;
  bool received_recorded = false;  // from the receiver's record, not the file time
  std::string railyard_version;
  std::string kernel;
  std::string boot_id;
  std::vector<std::string> drivers;
  int check_count = 0;
  // Per check kind, the worst status among this node's checks of that kind (index: the
  // CheckKind; worst_rank order, 0 when it has none): what the fleet tallies by kind.
  std::array<std::uint8_t, kCheckKinds> worst{};
  std::vector<FailedCheck> failures;  // the checks that count against the node
  std::vector<std::string> problems;  // planning problems
  std::vector<PhaseTiming> phases;
  // What each rail reached over LLDP (index: the rail; empty where it heard no neighbour),
  // for the fabric's topology (core/topology.h).
  std::vector<std::optional<RailNeighbor>> rails;
  double total_ms() const;
  // Why the report's `result` contradicts its checks and problems; "" when it does not.
  std::string contradiction() const;
};

struct LoadedReport {
  int schema = 0;
  bool passed = false;  // the report's own `result`
  Report report;
  // `node`, or the host name when the report has no node identity.
  std::string name() const { return report.node.empty() ? report.host.hostname : report.node; }
  // Why the report's `result` contradicts its checks and problems; "" when it does not.
  std::string contradiction() const;
  // The verdict every view gives: the report's own `result` when its checks agree, else
  // fail (a report that contradicts itself is not taken at its word).
  bool verdict() const { return passed && contradiction().empty(); }
};

// A report passes exactly when no check counts against the node and planning found no
// problem; why a `result` of `passed` says otherwise, or "".
std::string result_contradiction(bool passed, const std::vector<FailedCheck>& failures, std::size_t problems);

// Why the last read failed: the file could not be read, the text is not JSON, or it is JSON
// but not a report.
enum class ReportFault { none, unreadable, malformed, not_a_report };

// One reader per thread: it keeps its parser's buffers from one report to the next.
class ReportReader {
 public:
  ReportReader();
  ~ReportReader();
  ReportReader(const ReportReader&) = delete;
  ReportReader& operator=(const ReportReader&) = delete;

  Outcome<ReportDigest> digest(std::string_view text);
  // A report file read straight into the reader's buffer (errors name the file).
  Outcome<ReportDigest> digest_file(const std::string& path);
  Outcome<LoadedReport> whole(std::string_view text);
  // Every field checked as whole() does, into the model but for the values only kept as
  // JSON (plan, changes, inventory, lldp, modules, join): those are checked, never built.
  // What the receiver stores by: its memory stays near the body's size.
  Outcome<LoadedReport> checked(std::string_view text);
  // The node a report is for (`node`, else host.hostname), read without checking the rest:
  // what a receiver checks a per-node token against before it reads a body whole. nullopt
  // when the text is not a JSON object naming one.
  std::optional<std::string> node_name(std::string_view text);
  ReportFault fault() const { return fault_; }

  struct Parser;

 private:
  std::size_t take(std::string_view text);
  Outcome<ReportDigest> digest_taken(std::size_t size);
  std::unique_ptr<Parser> parser_;
  ReportFault fault_ = ReportFault::none;
};

// With a reader of this thread's own.
Outcome<ReportDigest> read_digest(std::string_view text);
Outcome<LoadedReport> parse_report(std::string_view text);

}  // namespace railyard
