// Every report under a directory, read in parallel into digests, and the newest report of
// each node picked out: the fleet as it stands after a rollout.
#pragma once

#include <string>
#include <vector>

#include "outcome.h"
#include "report/report_reader.h"

namespace railyard {

struct UnreadableReport {
  std::string path;
  std::string error;
};

struct Fleet {
  std::string dir;
  std::size_t reports = 0;  // reports read, earlier boots included
  // The latest report of each node, by node name: the one a receiver took last (its
  // <boot>.received record, else the file's modification time), not the node's started_at.
  std::vector<ReportDigest> nodes;
  // The latest report of each node that passed (its result, and its checks agree): what the
  // fabric's topology is read from. A node that never passed has none.
  std::vector<ReportDigest> passing;
  std::vector<UnreadableReport> unreadable;
};

// `threads` 0: one per core. A report with no node name stands alone, under its path.
Outcome<Fleet> read_fleet(const std::string& dir, unsigned threads = 0);

}  // namespace railyard
