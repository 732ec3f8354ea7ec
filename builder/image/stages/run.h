// A whole build: the plan's stages run in order through the stage cache, each timed, into a
// work directory; the output directory appears only when the image is complete.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "image/build_inputs.h"
#include "build_plan.h"
#include "command.h"
#include "image/openssl_hasher.h"
#include "outcome.h"
#include "recipe_loader.h"

namespace railyard {

struct BuildRequest {
  const LoadedRecipe& recipe;
  const BuildPlan& plan;
  const ContentDigests& digests;
  InputLocations where;
  std::string out_dir;
  std::string cache_dir;  // "" = no cache
  std::string log_path;   // every command's output
  // The process has a mount namespace of its own (enter_private_mount_namespace): a reused
  // entry is then layered under an overlayfs instead of copied.
  bool private_mounts = false;
};

struct StageTiming {
  Stage stage;
  std::string action;  // "reused", "built", "skipped"
  double seconds = 0;
  std::uint64_t bytes = 0;  // the stage's output, for stages stored, reused or packed (else 0: not measured)
};

struct BuildReport {
  std::vector<StageTiming> stages;
  double seconds = 0;
};

// `progress` gets one line per stage start/end and step.
Outcome<BuildReport> run_build_stages(const BuildRequest& req, OpenSslHasher& hasher,
                                      const std::function<void(const std::string&)>& progress);

std::string render_build_summary(const BuildReport& report, const std::string& out_dir);

}  // namespace railyard
