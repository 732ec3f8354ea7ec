// The build plan as a table for people (`railyard build --dry-run`), in the spirit of
// mkosi's summary: what would be built, from what, and what the cache already has.
#include <sstream>

#include "build_plan.h"

namespace railyard {

namespace {

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string tally(const BuildPlan& plan, const std::vector<bool>& cached, const std::vector<StageAction>& actions) {
  std::size_t build = 0;
  std::string reused;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (actions[i] == StageAction::build) ++build;
    if (actions[i] == StageAction::reuse) reused = to_string(plan.stages[i].stage);
  }
  std::string n = std::to_string(build) + " of " + std::to_string(actions.size()) + " stages to build";
  if (cached.empty()) return "cache off (--no-cache): " + n;
  if (reused.empty()) return "nothing cached: " + n;
  if (build == 0) return "everything cached: the image is assembled from the cache";
  return "starting from the cached " + reused + " stage: " + n;
}

}  // namespace

std::string render_build_plan(const BuildPlan& plan, const std::vector<bool>& cached) {
  std::vector<StageAction> actions =
      cached.empty() ? std::vector<StageAction>(plan.stages.size(), StageAction::build) : decide_actions(cached);
  std::ostringstream out;
  out << pad("STAGE", 10) << pad("KEY", kKeyPrefix + 2) << pad("CACHE", 7) << pad("ACTION", 8) << "DEFINED BY\n";
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    const StagePlan& s = plan.stages[i];
    std::string state = cached.empty() ? "off" : !stage_is_stored(s.stage) ? "-" : cached[i] ? "hit" : "miss";
    out << pad(to_string(s.stage), 10) << pad(s.key.substr(0, kKeyPrefix), kKeyPrefix + 2) << pad(state, 7)
        << pad(to_string(actions[i]), 8) << s.summary << "\n";
  }
  out << tally(plan, cached, actions) << "\n";
  return out.str();
}

}  // namespace railyard
