// The fleet sweep: every node against other nodes on every rail, across the leaves, so that a
// fault that only shows between two particular ports (a marginal transceiver, a leaf port's
// buffer profile, a congested spine path) is found and pinned on one link. Two halves, both
// pure: the schedule (which pairs test in which round, no NIC in two tests at once) and the
// blame (which node-rail the results point at, and which pairs need a second look against
// references before anyone is blamed). The worker that runs a round and the Slurm job around
// it are the programs'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "slurm.h"
#include "topology.h"

namespace railyard {

// full: every pair within each unit on every rail, and each node with at least two peers of
// other units (through the spine). quick: each node with its two ring neighbours in its unit
// and one peer of another unit.
enum class SweepMode { full, quick };
std::optional<SweepMode> parse_sweep_mode(const std::string& s);
const char* to_string(SweepMode m);

// One test: node `a` and node `b` on rail `rail` (a's rail-i NIC and b's, across their leaf i,
// or the spine when they are in different units), each way in turn.
struct SweepTest {
  std::string a;
  std::string b;
  int rail = 0;
  bool operator==(const SweepTest&) const = default;
};

// A unit as the sweep sees it: its leaves (one per rail) and its nodes, each with the rails it
// has (a node with fewer rails joined the unit whose first leaves its rails reach).
struct SweepNode {
  std::string name;
  int rails = 0;
};
struct SweepUnit {
  std::string name;
  std::vector<std::string> leaves;
  std::vector<SweepNode> nodes;
};
// The units of `t`, each node's rails from `nodes` (what group_units read).
std::vector<SweepUnit> sweep_units(const Topology& t, const std::vector<NodeFabric>& nodes);

struct SweepPlan {
  SweepMode mode = SweepMode::full;
  double seconds_per_test = 2;  // each way: a round takes twice this
  // Round by round: every rail of a node pair tests in the same round, so a node is in at
  // most one pair per round and each of its NICs in at most one test.
  std::vector<std::vector<SweepTest>> rounds;
  std::size_t tests = 0;
  std::size_t nodes = 0;  // the nodes the plan tests: the units', not the left-out
  // What the workers need to run it (the plan a sweep job hands them; --plan without an
  // inventory has neither): the TCP port every worker's responder listens on, and each node's
  // rail addresses by rail index ("" for a rail without one).
  int port = 0;
  std::map<std::string, std::vector<std::string>> addresses;
  // The fabric's time for the whole plan: rounds × 2 × seconds_per_test.
  double fabric_seconds() const;
};

// The schedule for `units` (a topology's left-out nodes are not swept: they are miscabled or
// never passed). Each unit's nodes meet in a round-robin tournament (full) or a ring (quick),
// the units all at once, followed by the rounds across units. Deterministic: the same
// topology gives the same plan.
SweepPlan plan_sweep(const std::vector<SweepUnit>& units, SweepMode mode, double seconds_per_test);

// The contract of `railyard fabric sweep --plan` (docs/sweep.md): rounds, tests and
// fabric_seconds, with the mode and the seconds per test.
nlohmann::ordered_json sweep_plan_json(const SweepPlan& p);
// That JSON read back, as the worker takes its plan: the mode, seconds_per_test and rounds
// (tests and nodes counted again), the port and the addresses when present. nullopt, with
// `why`, for anything a plan cannot hold: a host name Slurm would not take, a rail out of
// range, a node twice in one round, an address that is not IPv4, a port out of range.
std::optional<SweepPlan> sweep_plan_from_json(const nlohmann::json& j, std::string& why);

// One write of a node's worker. A round lasts twice seconds_per_test: each test's a writes
// into b's responder in the first half, b into a's in the second, every rail of the pair at
// once, so that each NIC sends in one test at a time and receives in one.
struct SweepSlot {
  SweepTest test;
  std::size_t round = 0;
  bool as_a = false;    // the node is the test's a: it writes in the first half
  std::string peer;     // whose responder it writes into
  double offset_s = 0;  // when, from the sweep's start
};
// A sweep's Slurm job (sbatch): one task per node runs the worker on the plan from one start,
// its results into a directory the nodes and the analysis share.
struct SweepJob {
  std::string dir;        // absolute, on a filesystem every node and the submitting host see
  std::string plan;       // the plan's file name in dir: "plan.json" or "retest-plan.json"
  std::string results;    // the results' directory name in dir: "results" or "retests"
  std::string partition;  // "": the cluster's default
  std::vector<std::string> nodes;
  double fabric_seconds = 0;
  std::string worker = "railyard-firstboot";  // the agent, as the nodes' PATH finds it
  int lead_s = 30;                            // from the job's start to the sweep's: srun places every worker meanwhile
};
// Why `job` cannot be written into a job script ("" when it can): the directory, partition,
// nodes and worker are checked, since they reach the shell and Slurm.
std::string sweep_job_error(const SweepJob& job);
// The job script: exclusive nodes, one task per node, a time limit of the sweep's fabric time
// with the lead and a margin, output beside the results. The workers' exit status does not
// fail the job: the analysis judges what they wrote.
std::string sweep_job_script(const SweepJob& job);

// The node's writes in the plan, in time order.
std::vector<SweepSlot> sweep_worker_slots(const SweepPlan& plan, const std::string& node);

// What the worker measured for one test. `ok`: both ways moved their data, compared; the
// bandwidth is the lower of the two ways; the counter deltas are the lossless counters' (the
// peer checks' set) on each side over the test, and "" when clean.
struct SweepResult {
  SweepTest test;
  bool ok = false;
  double gbps = 0;
  std::string error;       // why not ok, as the worker saw it
  std::string a_counters;  // e.g. "rx_discards_phy +12"
  std::string b_counters;
  // One way only, as a worker writes it: the node that wrote (the test's a or b), "" when
  // the result holds both ways. merge_sweep_ways makes one result of a test's two ways.
  std::string from;
};
// The workers' one-way results (`from` set) made into one result per test: ok when both ways
// were; the lower bandwidth; each side's counters and errors, each way's error named by its
// writer. A way with no result fails the test ("no result from HOST's write"). Results that
// hold both ways already pass through. In the order of first appearance.
std::vector<SweepResult> merge_sweep_ways(const std::vector<SweepResult>& ways);

// A node-rail the sweep blames: its link (cable, transceiver, NIC or the leaf's port).
struct SweepCulprit {
  std::string node;
  int rail = 0;
  std::string why;               // the sentence for the drain reason's tail and the report
  std::size_t peers = 0;         // distinct peers it was tested with
  std::size_t failed_peers = 0;  // and how many of those tests failed
  double median_gbps = 0;        // its tests' median bandwidth on the rail
  double unit_median_gbps = 0;   // the sweep's median on that rail among the node's unit
  std::string counters;          // the counter deltas on its side, joined
};

// A test that failed with neither node failing with most of its peers: retested, each node
// against references, before anyone is blamed.
struct SweepRetest {
  SweepResult failed;            // the test that failed alone, as it was measured
  std::vector<SweepTest> tests;  // each of its nodes against references on that rail
};

// How one node-rail fared in the first pass: the fabric view's cell.
struct SweepNicStat {
  std::string node;
  int rail = 0;
  std::size_t peers = 0;         // distinct peers it was tested with
  std::size_t failed_peers = 0;  // and with how many a test failed
  double median_gbps = 0;        // its tests' median bandwidth (a failed write counts 0)
  // A test failed with a peer that is not blamed on this rail: what the failure says is
  // not explained by a culprit at the far end.
  bool unexplained = false;
};

struct SweepBlame {
  std::vector<SweepNicStat> nics;      // every node-rail tested, by node index of first appearance, then rail
  std::vector<SweepCulprit> culprits;  // by node, then rail
  std::vector<SweepRetest> retests;    // the second pass's tests (first pass only)
  // Pairs that failed alone and whose nodes both passed against references: a path between
  // them (the spine, a route), not either node's link. Named, not drained.
  std::vector<SweepResult> pair_faults;
  std::size_t tests = 0;
  std::size_t failed_tests = 0;
};

// How low a bandwidth is a failing test: below this share of the median on its rail (among
// the tests in the same unit, or across units for the cross-unit tests).
inline constexpr double kSweepSlowFraction = 0.8;
// How many references each node of a pair that failed alone is retested against.
inline constexpr std::size_t kRetestReferences = 2;

// The first pass's blame. A node-rail is blamed when it failed with at least two distinct
// peers and with more than half of those it was tested with. A failed test whose nodes are
// neither blamed is retested: each of its nodes on that rail against kRetestReferences nodes
// whose tests on that rail all passed (`references`, when given, first; then nodes of the same
// unit), scheduled so that no NIC is in two tests at once (retest rounds: `retest_rounds`).
SweepBlame blame_sweep(const std::vector<SweepUnit>& units, const std::vector<SweepResult>& results,
                       const std::vector<std::string>& references = {});

// The second pass: a node whose retests against references all failed is blamed; a pair
// whose nodes both passed is a pair fault. `first` comes from blame_sweep.
SweepBlame settle_retests(const SweepBlame& first, const std::vector<SweepResult>& retests);

// The retests of `b` packed into rounds, no node in two tests of a round.
std::vector<std::vector<SweepTest>> retest_rounds(const SweepBlame& b);

// `text` fit for a result's error or counters (at most 200 printable characters, no quotes
// or backslashes): what does not fit is replaced or cut, so that a worker's own words never
// make its results file unreadable.
std::string sweep_note(const std::string& text);

// Whether a result counts as failing against the median bandwidth `median` of its rail.
bool sweep_test_failed(const SweepResult& r, double median);

// A result as the worker writes it: {"a", "b", "rail", "ok", "gbps", "error", "a_counters",
// "b_counters"} (the last three optional). nullopt, with `why`, for anything else: a host
// name Slurm would not take, a rail or bandwidth out of range.
std::optional<SweepResult> sweep_result_from_json(const nlohmann::json& j, std::string& why);
nlohmann::ordered_json to_json(const SweepResult& r);

// Where a node-rail is cabled, as LLDP told its report; empty when unknown.
struct SweepPlace {
  std::string leaf;
  std::string port;
};

// The drain reason of a culprit: "railyard: sweep rail.N <why>", within Slurm's reason length.
std::string sweep_drain_reason(const SweepCulprit& c);

// What the sweep asks of Slurm. Each culprit's node is drained (one drain per node, its rails
// named) unless it is drained already, whoever drained it, or the controller does not know it. Once the sweep is
// settled, a swept node that is no culprit and whose drain is the sweep's is resumed; no other drain is touched.
// `states` holds the nodes as `scontrol show node` printed them, by name.
struct SweepSlurmAction {
  std::string node;
  bool drain = false;  // false: resume
  std::string reason;  // a drain's
  std::string note;    // why, for the log
};
std::vector<SweepSlurmAction> sweep_slurm_actions(const SweepBlame& b, bool settled,
                                                  const std::vector<SweepUnit>& units,
                                                  const std::vector<SlurmNodeState>& states,
                                                  const std::vector<std::string>& state_names);

// sweep.json (docs/sweep.schema.json), a contract: the counts, the culprits with their leaf
// and port, the pair faults, the retests still to run (a first pass whose retests have not
// run yet), and every node-rail's first pass with its verdict (the fabric view's cells).
nlohmann::ordered_json sweep_json(const SweepBlame& b, SweepMode mode, bool settled,
                                  const std::vector<std::pair<std::string, std::vector<SweepPlace>>>& places);

// The same for Prometheus (node_exporter's textfile collector, or a Pushgateway): the counts,
// and a series per culprit and per pair fault.
std::string sweep_prometheus_text(const SweepBlame& b, bool settled);

}  // namespace railyard
