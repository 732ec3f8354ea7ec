#include "gpu/nccl.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "io/process.h"
#include "text.h"

namespace railyard {

NcclRun run_all_reduce_perf(const std::string& program, int gpus, int timeout_s) {
  std::vector<std::string> argv = {program, "-b", "8M", "-e", "1G", "-f", "2", "-g", std::to_string(gpus), "-c", "1"};
  NcclRun run;
  run.command = join(argv, " ");
  if (::access(program.c_str(), X_OK) != 0) {
    run.not_run = program + ": " + std::strerror(errno) +
                  " (build nccl-tests into the image, or set selftest.nccl_all_reduce_perf)";
    return run;
  }
  constexpr std::size_t kOutputLimit = 256 * 1024;
  ProcessResult r = run_process(
      {.argv = argv, .capture = true, .capture_limit = kOutputLimit, .timeout = std::chrono::seconds(timeout_s)});
  run.status = r.status;
  run.output = std::move(r.out);
  return run;
}

namespace {

// The number after the colon of the line that starts with `key`, if any.
std::optional<double> summary_value(std::string_view output, std::string_view key) {
  for (const std::string& line : split(output, '\n')) {
    auto at = line.find(key);
    if (at == std::string_view::npos) continue;
    auto colon = line.find(':', at);
    if (colon == std::string_view::npos) continue;
    std::string rest = trim(std::string_view(line).substr(colon + 1));
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str() || errno != 0) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

}  // namespace

Outcome<AllReduce> parse_all_reduce(std::string_view output) {
  AllReduce a;
  auto busbw = summary_value(output, "# Avg bus bandwidth");
  if (!busbw) return Outcome<AllReduce>::fail("no \"# Avg bus bandwidth\" line: all_reduce_perf did not finish");
  a.busbw_gbps = *busbw;
  if (auto wrong = summary_value(output, "# Out of bounds values")) a.wrong = static_cast<long>(*wrong);
  // The table's rows start with the size in bytes; the last is the largest.
  for (const std::string& line : split(output, '\n')) {
    std::string t = trim(line);
    if (!t.empty() && t.front() >= '0' && t.front() <= '9') a.largest = t;
  }
  return a;
}

}  // namespace railyard
