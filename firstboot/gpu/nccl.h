// NCCL's collective bandwidth on the node: nccl-tests' all_reduce_perf run across the node's
// GPUs, and what its output says. nccl-tests is built by whoever builds the image (Debian
// does not package it); where the image lacks it the check skips, saying so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outcome.h"

namespace railyard {

struct NcclRun {
  std::string command;                 // as run, for the report
  std::optional<std::string> not_run;  // why it was not run (the program is not in the image)
  int status = 0;                      // exit status; 124: killed at the bound
  std::string output;                  // its standard output
};

// Runs `program` -b 8M -e 1G -f 2 -g GPUS -c 1 (sizes 8 MiB to 1 GiB, results checked),
// killed after `timeout_s`.
NcclRun run_all_reduce_perf(const std::string& program, int gpus, int timeout_s);

struct AllReduce {
  double busbw_gbps = 0;  // "# Avg bus bandwidth" in GB/s
  long wrong = 0;         // "# Out of bounds values": results that differ from the expected
  std::string largest;    // the largest size's line, for the report
};

// all_reduce_perf's summary lines; a failure says what is missing (a run that died early).
Outcome<AllReduce> parse_all_reduce(std::string_view output);

}  // namespace railyard
