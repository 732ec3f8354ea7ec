// The stage runner: each wanted stage run in order, timed into its phase, an error named by
// its stage and the run stopped there; first boot's stage list as operators read it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "stages/run.h"
#include "stages/stage.h"

namespace railyard {

namespace {

std::vector<std::string> ran;

Status first(RunContext&) {
  ran.push_back("first");
  return success();
}
Status second(RunContext&) {
  ran.push_back("second");
  return success();
}
Status broken(RunContext&) {
  ran.push_back("broken");
  return Status::fail(EIO, "the disk went away");
}
bool never(const RunContext&) { return false; }

}  // namespace

TEST_CASE("run_stages: every wanted stage in order, each timed into its phase, shared phases once") {
  ran.clear();
  RunContext ctx(InputPaths{}, "/", true);
  const Stage stages[] = {{"a", "apply", nullptr, first},
                          {"skipped", "bgp", never, broken},
                          {"b", "verify", nullptr, second},
                          {"c", "apply", nullptr, first},
                          {"untimed", "", nullptr, second}};
  Status s = run_stages(stages, ctx);
  CHECK(s.ok());
  CHECK(ran == std::vector<std::string>{"first", "second", "first", "second"});
  REQUIRE(ctx.report.phases.size() == 2);
  CHECK(ctx.report.phases[0].phase == "apply");
  CHECK(ctx.report.phases[1].phase == "verify");
  CHECK(ctx.report.phases[0].ms >= 0);
}

TEST_CASE("run_stages: a failing stage stops the run, its error named by the stage, its time still counted") {
  ran.clear();
  RunContext ctx(InputPaths{}, "/", true);
  const Stage stages[] = {
      {"a", "apply", nullptr, first}, {"storage", "apply", nullptr, broken}, {"b", "verify", nullptr, second}};
  Status s = run_stages(stages, ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == EIO);
  CHECK(s.error() == "stage storage: the disk went away");
  CHECK(ran == std::vector<std::string>{"first", "broken"});
  REQUIRE(ctx.report.phases.size() == 1);
  CHECK(ctx.report.phases[0].phase == "apply");
}

TEST_CASE("first boot's stages: the order of a run, and the phases reports have always had") {
  std::vector<std::string> names, phases;
  for (const Stage& s : first_boot_stages()) {
    names.emplace_back(s.name);
    if (!s.phase.empty() && std::find(phases.begin(), phases.end(), s.phase) == phases.end())
      phases.emplace_back(s.phase);
  }
  CHECK(names == std::vector<std::string>{"discover", "plan", "apply", "routing", "storage", "settle", "gpu", "verify",
                                          "report", "join"});
  CHECK(phases == std::vector<std::string>{"discover", "plan", "apply", "bgp", "verify"});
  std::vector<std::string> preview;
  for (const Stage& s : preview_stages()) preview.emplace_back(s.name);
  CHECK(preview == std::vector<std::string>{"discover", "plan"});
}

TEST_CASE("first boot's stages: a plan with problems skips from apply to verify, and still reports and joins") {
  RunContext ctx(InputPaths{}, "/", false);
  ctx.plan.problems.push_back("no NIC for rail 0");
  REQUIRE_FALSE(ctx.plan.ok());
  std::vector<std::string> wanted;
  for (const Stage& s : first_boot_stages())
    if (!s.wanted || s.wanted(ctx)) wanted.emplace_back(s.name);
  CHECK(wanted == std::vector<std::string>{"discover", "plan", "report", "join"});
}

}  // namespace railyard
