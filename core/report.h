// The first-boot report (/var/lib/railyard/report.json): the contract operators and the
// fleet tools read. Schema 1: schema, node, result, checks[] {name, status, expected,
// observed, detail}; plus what this railyard adds (phases, changes, required, host,
// inventory). Fields are only ever added within a schema; readers ignore keys they do not
// know (docs/report.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check_id.h"

namespace railyard {

inline constexpr int kReportSchema = 1;

enum class CheckStatus { pass, fail, skip, warn, unsupported };

struct CheckResult {
  CheckId id;
  CheckStatus status = CheckStatus::skip;
  std::string expected;
  std::string observed;
  std::string detail;
  bool required = true;
  // Counts against the node: a failure, or a required check that could not pass.
  bool failing() const;
  std::string name() const { return id.name(); }
};

struct PhaseTiming {
  std::string phase;  // discover, plan, apply, verify, report, join
  double ms = 0;
};

// Where the report was made, so that a fleet can be grouped by what its nodes run.
struct HostInfo {
  std::string hostname;              // the kernel's host name (the node's name without node identity)
  std::string kernel;                // release of the running kernel (uname -r)
  std::string boot_id;               // this boot (/proc/sys/kernel/random/boot_id); "" when unknown
  std::vector<std::string> drivers;  // the image's driver bundles (recipe image.drivers), one per release
};

struct Report {
  std::string node;
  std::string recipe;
  std::string railyard_version;
  std::string started_at;  // RFC 3339, UTC
  HostInfo host;
  std::vector<CheckResult> checks;
  std::vector<PhaseTiming> phases;
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();  // apply's Change records
  nlohmann::ordered_json plan = nullptr;                             // the plan that was applied
  std::vector<std::string> problems;                                 // planning problems
  // The node as last discovered (after apply when there was one): the inventory JSON of
  // `railyard-firstboot discover --json`, so that a report alone shows GPUs, NICs, NUMA
  // nodes and link states; the plan's rails say which GPU is pinned to which NIC.
  nlohmann::ordered_json inventory = nullptr;
  // The image's driver bundles' kernel modules as the kernel has them once the agent is done:
  // loaded or not, version and srcversion (firstboot/checks/image_modules.h); null outside
  // a railyard image.
  nlohmann::ordered_json modules = nullptr;
  // The rails' LLDP neighbours as heard, per rail (firstboot/checks/lldp.h); null when
  // nothing listened.
  nlohmann::ordered_json lldp = nullptr;
  // Each rail's peer probe (firstboot/checks/peer_probe.h): its reference, whether the
  // exchange completed, the bandwidth and latency measured, the counters that moved and what
  // was tried; null when no rail probed a reference.
  nlohmann::ordered_json peers = nullptr;
  // What joining did (firstboot/join/join.h): the gate, each join unit's state, the on-fail
  // command, the report's POST attempts; null until the agent has joined or refused to.
  nlohmann::ordered_json join = nullptr;

  bool passed() const;
  int failed_count() const;
};

// The checks that count against the node, by name, in report order ("plan" first when the
// plan had problems): what a failing node's on-fail command and drain reason name.
std::vector<std::string> failing_checks(const Report& r);
// "railyard: rail.1.mtu, rail.2.link (+3 more)": the prefix railyard's own drains carry (so
// that only those are resumed) and the first failing checks, within kDrainReasonLimit bytes.
inline constexpr std::size_t kDrainReasonLimit = 128;
std::string drain_reason(const Report& r);

std::string to_string(CheckStatus s);
// 1 pass, 2 warn, 3 skip, 4 unsupported, 5 fail: how bad a status is. A node's standing on a
// check kind is its worst check of that kind; a bonded rail's check, its worst port.
std::uint8_t worst_rank(CheckStatus s);
CheckStatus status_of_rank(std::uint8_t rank);
std::optional<CheckStatus> parse_check_status(const std::string& s);

nlohmann::ordered_json to_json(const Report& r);
// The last console line: `railyard: result=pass|fail checks=N failed=M`.
std::string result_marker(const Report& r);
// For people: failures first with expected vs observed, then the rest, then timings.
std::string summary_text(const Report& r);
// node_exporter textfile collector format: railyard_info (version, kernel, drivers, recipe
// as labels), the report's time, the result, one series per check with its status and
// whether it is required, joined and report-posted (from the report's join record, when it
// has one), and the phases.
std::string prometheus_text(const Report& r);
// node-feature-discovery's local feature file (features.d): the result, joined, the rails and
// their RDMA devices and the recipe, as `name=value` lines whose values are Kubernetes label
// values (other characters become '_', 63 at most).
std::string nfd_features_text(const Report& r);

}  // namespace railyard
