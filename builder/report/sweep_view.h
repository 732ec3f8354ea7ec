// A fleet sweep's verdict (sweep.json, docs/sweep.schema.json) as `railyard report` shows it:
// in the summary (the counts, the culprits with their leaf and port, the pair faults), in one
// node's report (its rails' verdicts), and on the fleet page as the fabric sweep view (nodes ×
// rails coloured by the sweep, culprits first).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "outcome.h"
#include "report/text_style.h"

namespace railyard {

struct SweepCulpritView {
  std::string node;
  int rail = 0;
  std::string leaf;  // "" when LLDP did not say
  std::string port;
  std::string why;
  std::string drain_reason;
};

struct SweepPairView {
  std::string a, b;
  int rail = 0;
  std::string error;
};

struct SweepCellView {
  int rail = 0;
  std::size_t peers = 0, failed_peers = 0;
  double median_gbps = 0;
  std::string verdict;  // pass, failed, culprit
};

struct SweepView {
  std::string path;
  std::string mode;
  bool settled = false;
  std::size_t tests = 0, failed_tests = 0, retest_rounds = 0;
  std::vector<SweepCulpritView> culprits;
  std::vector<SweepPairView> pair_faults;
  std::vector<std::pair<std::string, std::vector<SweepCellView>>> nodes;  // culprits' nodes first, then as written
};

// sweep.json read from `path`: every field checked against the schema's types; errors name the
// file and the field.
Outcome<SweepView> read_sweep_view(const std::string& path);

// The summary's section: the verdict and its counts, each culprit (node, rail, leaf and port,
// why), each pair fault, the retests still to run.
std::string sweep_text(const SweepView& v, const TextStyle& st);
nlohmann::ordered_json sweep_summary_json(const SweepView& v);
// One node's lines: each of its rails' verdict in the sweep; "" when the sweep did not test it.
std::string sweep_node_text(const SweepView& v, const std::string& node, const TextStyle& st);
// The fleet page's section: the culprits first, then a grid of nodes × rails coloured by the
// sweep (culprit, failed, pass, not tested).
std::string sweep_html(const SweepView& v);

}  // namespace railyard
