// recipe + driver manifests + content digests → the ordered build stages, each with the
// canonical text of what defines it and a cache key chained through the previous stage.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hasher.h"
#include "recipe_loader.h"

namespace railyard {

// In build order; `pxe` is not a stage but a separate command over the packed image.
enum class Stage { base, drivers, overlays, agent, hygiene, trim, pack };
inline constexpr std::array<Stage, 7> kStages{Stage::base,    Stage::drivers, Stage::overlays, Stage::agent,
                                              Stage::hygiene, Stage::trim,    Stage::pack};
std::string to_string(Stage s);
std::optional<Stage> parse_stage(const std::string& name);

// Whether the stage's output is kept in the cache. Every stage has a key, but the ones that
// take seconds (overlays, agent, hygiene, trim) are redone from the previous stored stage:
// storing and verifying a copy of the whole root filesystem after each would cost more than
// redoing them. pack is stored: its output is small and a full hit skips the build.
bool stage_is_stored(Stage s);
// Whether a stage that may be stored is worth storing, having taken `seconds` to build:
// base and pack always; drivers only when it took longer than storing and later copying
// back a root filesystem would (a few seconds a GiB), as DKMS builds and vendor installers
// do, not when it installed a few distribution packages in seconds.
inline constexpr double kDriversStoredAfterSeconds = 10;
bool stage_worth_storing(Stage s, double seconds);

// What the recipe names but only the builder can read from disk, as digests (sha256 hex).
// A name missing from a map, or an empty string, is planned as "missing": the key still
// differs from any real content, and the summary says what is absent.
struct ContentDigests {
  std::map<std::string, std::string> overlays;        // overlay name → digest of its tree listing
  std::map<std::string, std::string> driver_keys;     // bundle name → sha256 of its apt key_file
  std::string host_apt_sources;                       // mirror = "host": the host's apt sources
  std::string agent;                                  // the agent as installed into images
  std::map<std::string, std::string> driver_sources;  // kind = "source" bundle → digest of its tree listing
};

struct BuildSettings {
  std::int64_t source_date_epoch = 0;  // every timestamp in the image is clamped to it
  int zstd_level = 3;
};

struct StagePlan {
  Stage stage = Stage::base;
  std::string inputs;   // canonical TOML of everything that defines the stage's output
  std::string summary;  // the same, in one line for people
  std::string key;      // sha256 over stage name, previous stage's key and `inputs`
};

struct BuildPlan {
  std::string recipe_name;
  BuildSettings settings;
  std::vector<StagePlan> stages;  // one per kStages entry, in order
  const StagePlan& at(Stage s) const { return stages.at(static_cast<std::size_t>(s)); }
};

BuildPlan plan_build(const LoadedRecipe& lr, const ContentDigests& digests, const BuildSettings& settings,
                     Hasher& hasher);

// What a build does with each stage, given which keys the cache already holds.
enum class StageAction {
  reuse,  // the last stage found in the cache: its output is the starting point
  build,  // after the last hit, or everything when nothing (or no cache) is found
  skip,   // before the last hit: its output is not needed
};
std::string to_string(StageAction a);
std::vector<StageAction> decide_actions(const std::vector<bool>& cached);

// The dry-run table: stage, key prefix, cache state, action, what defines it. `cached` is
// empty when the cache is off (--no-cache).
std::string render_build_plan(const BuildPlan& plan, const std::vector<bool>& cached);

inline constexpr std::size_t kKeyPrefix = 12;  // hex digits shown for keys, as git shows commits

}  // namespace railyard
