// What every build stage gets: the recipe, the plan, the tree it works on and the ways it may
// touch the world (commands, hashing). One file per stage implements run_<stage>(); what
// defines each stage and its cache key is computed purely in core/build_plan.cc (plan_build).
#pragma once

#include <functional>
#include <string>

#include "image/build_inputs.h"
#include "build_plan.h"
#include "command.h"
#include "image/openssl_hasher.h"
#include "package_pool.h"
#include "outcome.h"
#include "recipe_loader.h"

namespace railyard {

struct StageContext {
  const LoadedRecipe& recipe;
  const BuildPlan& plan;
  std::string root;       // the image's root filesystem, modified in place by each stage
  std::string image_dir;  // pack writes the artifacts here
  std::string downloads;  // where fetched bundles are kept (the cache's, or the work directory's)
  InputLocations where;   // overlays, the agent package, the host's apt sources
  const ContentDigests& digests;
  CommandRunner& runner;
  OpenSslHasher& hasher;
  std::function<void(const std::string&)> step;  // one line of progress ("installing 8 packages")
  PackagePool* packages = nullptr;               // the build's kept packages (package_pool.h); null: one per install
};

Status run_base(StageContext& ctx);
Status run_drivers(StageContext& ctx);
Status run_overlays(StageContext& ctx);
Status run_agent(StageContext& ctx);
Status run_hygiene(StageContext& ctx);
Status run_trim(StageContext& ctx);
Status run_pack(StageContext& ctx);

Status run_stage(Stage stage, StageContext& ctx);

// Where stages leave what later ones (and the manifest) need to know, inside the image so
// that it survives the cache: a stage reused from the cache brings its records along.
inline constexpr const char* kImageRecordDir = "usr/share/railyard/image";

}  // namespace railyard
