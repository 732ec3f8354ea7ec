// `railyard build RECIPE`: recipe → build plan → stages through the cache → the image
// directory, moved into place only when complete. --dry-run prints the plan and stops.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "image/build_inputs.h"
#include "build_plan.h"
#include "image/cache.h"
#include "commands.h"
#include "image/openssl_hasher.h"
#include "image/stages/overlay_root.h"
#include "image/stages/run.h"
#include "io/log.h"
#include "subcommand.h"
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

struct BuildOptions {
  std::string recipe;
  std::string out_dir;    // "" = out/<recipe name>/
  std::string cache_dir;  // "" = default_cache_dir()
  bool no_cache = false;
  bool dry_run = false;
  bool explain = false;  // with --dry-run: each stage's canonical inputs
};

int run_build(const FileSource& files, const BuildOptions& opt, const CommonOptions& common) {
  Diagnostics diags;
  RecipeOptions ropts = common.recipe_options();
  auto lr = load_recipe(files, opt.recipe, ropts, diags);
  if (!lr) {
    for (const auto& d : diags.sorted()) logging::located(format(d));
    return kExitBadInput;
  }
  std::string epoch_text;
  auto epoch = source_date_epoch(epoch_text);
  if (!epoch) {
    spdlog::error("SOURCE_DATE_EPOCH='{}' is not a non-negative number of seconds", std::getenv("SOURCE_DATE_EPOCH"));
    return kExitBadInput;
  }
  std::string cache_dir = opt.cache_dir;
  if (cache_dir.empty() && !opt.no_cache)
    cache_dir = default_cache_dir(::geteuid() == 0, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (cache_dir.empty() && !opt.no_cache) {
    spdlog::error("neither HOME nor XDG_CACHE_HOME is set; pass --cache DIR or --no-cache");
    return kExitBadInput;
  }
  std::string out_dir = opt.out_dir.empty() ? "out/" + lr->recipe.name + "/" : opt.out_dir;

  OpenSslHasher hasher;
  InputLocations where;
  where.overlays_dir =
      ropts.overlays_dir.empty() ? find_dir_upwards(files, dir_name(opt.recipe), "overlays") : ropts.overlays_dir;
  where.agent = find_agent_package(self_executable());
  auto digests = digest_inputs(*lr, where, hasher);
  if (!digests.ok()) {
    spdlog::error("{}", digests.error());
    return kExitFailed;
  }
  BuildSettings settings;
  settings.source_date_epoch = *epoch;
  BuildPlan plan = plan_build(*lr, *digests, settings, hasher);

  // Lookups only read, so a dry run leaves the cache exactly as it was. A build makes its
  // own, verifying only the entry it starts from.
  std::vector<bool> cached;
  std::vector<std::string> notes;
  if (!opt.no_cache && opt.dry_run) {
    StageCache cache(cache_dir, hasher);
    for (const auto& s : plan.stages) {
      if (!stage_is_stored(s.stage)) {
        cached.push_back(false);
        continue;
      }
      CacheLookup l = cache.lookup(s.stage, s.key);
      cached.push_back(l.hit);
      if (!l.hit && l.why_not != "absent")
        notes.push_back(to_string(s.stage) + " entry " + s.key.substr(0, kKeyPrefix) + " not used: " + l.why_not);
    }
  }
  if (where.agent.empty())
    notes.push_back(
        "the railyard-firstboot package is not beside this railyard (packages/ or ../share/railyard/packages/); the "
        "agent stage cannot run");

  if (opt.dry_run) {
    std::cout << "railyard build " << plan.recipe_name << ": dry run, nothing is built or written\n"
              << "  recipe             " << opt.recipe << "\n"
              << "  output             " << out_dir << "\n"
              << "  cache              " << (opt.no_cache ? "off (--no-cache)" : cache_dir) << "\n"
              << "  SOURCE_DATE_EPOCH  " << epoch_text << "\n\n"
              << render_build_plan(plan, cached);
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
    if (opt.explain)
      for (const auto& s : plan.stages) std::cout << "\n# " << to_string(s.stage) << " " << s.key << "\n" << s.inputs;
    return kExitOk;
  }

  if (::geteuid() != 0) {
    spdlog::error(
        "building an image needs root (mmdebstrap, apt and depmod run in a chroot of the image); "
        "--dry-run does not");
    return kExitFailed;
  }
  for (const auto& n : notes) spdlog::warn("{}", n);
  // Before any thread starts: the kernel gives a new mount namespace to single-threaded
  // processes only.
  Status private_mounts = enter_private_mount_namespace();
  if (!private_mounts.ok()) spdlog::info("{}: a reused cache entry is copied, not layered", private_mounts.error());
  std::filesystem::path out = std::filesystem::path(out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  std::string log_path = out.string() + ".build.log";
  std::cout << "railyard build " << plan.recipe_name << " -> " << out.string() << " (log: " << log_path << ")\n"
            << std::flush;
  {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path().empty() ? "." : out.parent_path(), ec);
    std::filesystem::remove(log_path, ec);
  }
  BuildRequest req{
      *lr, plan, *digests, where, out.string(), opt.no_cache ? "" : cache_dir, log_path, private_mounts.ok()};
  auto built = run_build_stages(req, hasher, [](const std::string& line) { std::cout << line << "\n" << std::flush; });
  if (!built.ok()) {
    spdlog::error("{}\nnothing was written to {}", built.error(), out.string());
    return kExitFailed;
  }
  std::cout << render_build_summary(*built, out.string());
  return kExitOk;
}

const bool build_registered = register_subcommand(40, [](CLI::App& app) {
  auto opt = std::make_shared<BuildOptions>();
  auto* sub = app.add_subcommand("build", "Build a recipe's PXE image, stage by stage, through the cache");
  sub->add_option("recipe", opt->recipe, "Recipe file")->required();
  sub->add_option("-o,--output", opt->out_dir, "Output directory (default: out/<recipe name>/)");
  sub->add_option("--cache", opt->cache_dir,
                  "Stage cache (default: ${XDG_CACHE_HOME:-~/.cache}/railyard; /var/cache/railyard as root)");
  sub->add_flag("--no-cache", opt->no_cache, "Neither use nor fill the stage cache");
  sub->add_flag("--dry-run", opt->dry_run, "Print the stage plan with cache hits and misses; build nothing");
  sub->add_flag("--explain", opt->explain, "With --dry-run: print what defines each stage's key");
  return Subcommand{sub, [opt](const CommandContext& ctx) { return run_build(ctx.files, *opt, ctx.common); }};
});

}  // namespace

}  // namespace railyard
