// `railyard build RECIPE`: recipe → build plan → stages. Today only the plan exists
// (--dry-run); without it the build stops at the first stage that is not written yet.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "build_inputs.h"
#include "build_plan.h"
#include "cache.h"
#include "commands.h"
#include "openssl_hasher.h"
#include "text.h"

namespace railyard {

namespace {

// SOURCE_DATE_EPOCH from the environment, or 0: a build must not depend on when it ran.
std::optional<std::int64_t> source_date_epoch(std::string& text) {
  const char* env = std::getenv("SOURCE_DATE_EPOCH");
  if (!env) {
    text = "0 (SOURCE_DATE_EPOCH unset)";
    return 0;
  }
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(env, &end, 10);
  if (errno != 0 || end == env || *end != '\0' || v < 0) return std::nullopt;
  text = std::to_string(v);
  return v;
}

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

}  // namespace

int run_build(const FileSource& files, const BuildOptions& opt, const CommonOptions& common) {
  Diagnostics diags;
  RecipeOptions ropts = common.recipe_options();
  auto lr = load_recipe(files, opt.recipe, ropts, diags);
  if (!lr) {
    for (const auto& d : diags.sorted()) std::cerr << format(d) << "\n";
    return kExitBadInput;
  }
  std::string epoch_text;
  auto epoch = source_date_epoch(epoch_text);
  if (!epoch) {
    std::cerr << "railyard build: SOURCE_DATE_EPOCH='" << std::getenv("SOURCE_DATE_EPOCH")
              << "' is not a non-negative number of seconds\n";
    return kExitBadInput;
  }
  std::string cache_dir = opt.cache_dir;
  if (cache_dir.empty() && !opt.no_cache)
    cache_dir = default_cache_dir(::geteuid() == 0, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (cache_dir.empty() && !opt.no_cache) {
    std::cerr << "railyard build: neither HOME nor XDG_CACHE_HOME is set; pass --cache DIR or --no-cache\n";
    return kExitBadInput;
  }
  std::string out_dir = opt.out_dir.empty() ? "out/" + lr->recipe.name + "/" : opt.out_dir;

  OpenSslHasher hasher;
  InputLocations where;
  where.overlays_dir = ropts.overlays_dir.empty() ? find_dir_upwards(files, dir_name(opt.recipe), "overlays")
                                                   : ropts.overlays_dir;
  where.agent = find_agent_beside(self_exe());
  auto digests = digest_inputs(*lr, where, hasher);
  if (!digests.ok()) {
    std::cerr << "railyard build: " << digests.error() << "\n";
    return kExitFailed;
  }
  BuildSettings settings;
  settings.source_date_epoch = *epoch;
  BuildPlan plan = plan_build(*lr, *digests, settings, hasher);

  // Lookups only read, so a dry run leaves the cache exactly as it was.
  std::vector<bool> cached;
  std::vector<std::string> notes;
  if (!opt.no_cache) {
    StageCache cache(cache_dir, hasher);
    for (const auto& s : plan.stages) {
      CacheLookup l = cache.lookup(s.stage, s.key);
      cached.push_back(l.hit);
      if (!l.hit && l.why_not != "absent")
        notes.push_back(to_string(s.stage) + " entry " + s.key.substr(0, kKeyPrefix) + " not used: " + l.why_not);
    }
  }
  if (where.agent.empty()) notes.push_back("railyard-firstboot is not beside this railyard; the agent stage cannot run");

  if (opt.dry_run) {
    std::cout << "railyard build " << plan.recipe_name << ": dry run, nothing is built or written\n"
              << "  recipe             " << opt.recipe << "\n"
              << "  output             " << out_dir << "\n"
              << "  cache              " << (opt.no_cache ? "off (--no-cache)" : cache_dir) << "\n"
              << "  SOURCE_DATE_EPOCH  " << epoch_text << "\n\n"
              << render_build_plan(plan, cached);
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
    if (opt.explain)
      for (const auto& s : plan.stages)
        std::cout << "\n# " << to_string(s.stage) << " " << s.key << "\n" << s.inputs;
    return kExitOk;
  }

  // No stage can run yet: say which one the build would have started with, and stop
  // before anything is written (no output directory, no cache entry).
  std::vector<StageAction> actions = cached.empty() ? std::vector<StageAction>(plan.stages.size(), StageAction::build)
                                                    : decide_actions(cached);
  Stage first = Stage::pack;
  for (std::size_t i = 0; i < actions.size(); ++i)
    if (actions[i] == StageAction::build) {
      first = plan.stages[i].stage;
      break;
    }
  std::cerr << "railyard build: the " << to_string(first)
            << " stage is not implemented yet; nothing was built (railyard build --dry-run shows the plan)\n";
  return kExitFailed;
}

}  // namespace railyard
