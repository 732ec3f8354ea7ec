#include "stages/stage.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "stages/run.h"

namespace railyard {

namespace {

void add_to_phase(Report& report, std::string_view phase, double ms) {
  for (auto& p : report.phases)
    if (p.phase == phase) {
      p.ms += ms;
      return;
    }
  report.phases.push_back({std::string(phase), ms});
}

}  // namespace

Status run_stages(std::span<const Stage> stages, RunContext& ctx) {
  for (const Stage& stage : stages) {
    if (stage.wanted && !stage.wanted(ctx)) {
      spdlog::debug("stage {}: not wanted here", stage.name);
      continue;
    }
    auto t = std::chrono::steady_clock::now();
    Status s = stage.run(ctx);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    spdlog::debug("stage {}: {:.0f} ms", stage.name, ms);
    if (!stage.phase.empty()) add_to_phase(ctx.report, stage.phase, ms);
    if (!s.ok()) return Status::fail(s.code(), "stage " + std::string(stage.name) + ": " + s.error());
  }
  return success();
}

}  // namespace railyard
