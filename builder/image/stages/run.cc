#include "run.h"

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <stdlib.h>

#include "apt.h"
#include "image/cache.h"
#include "image/file_lock.h"
#include "image_files.h"
#include "overlay_root.h"
#include "stage.h"

namespace railyard {

namespace fs = std::filesystem;

Status run_stage(Stage stage, StageContext& ctx) {
  switch (stage) {
    case Stage::base: return run_base(ctx);
    case Stage::drivers: return run_drivers(ctx);
    case Stage::overlays: return run_overlays(ctx);
    case Stage::agent: return run_agent(ctx);
    case Stage::hygiene: return run_hygiene(ctx);
    case Stage::trim: return run_trim(ctx);
    case Stage::pack: return run_pack(ctx);
  }
  return Status::fail("unknown stage");
}

namespace {

using SteadyClock = std::chrono::steady_clock;
double since(SteadyClock::time_point t) { return std::chrono::duration<double>(SteadyClock::now() - t).count(); }

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", s);
  return buf;
}

// The work directory beside the output: same filesystem, so the finished image is renamed
// into place. Locked while the build lives; one whose lock is free was left by a killed
// build and is removed by the next.
struct WorkDir {
  std::string path;
  std::optional<FileLock> lock;
  ~WorkDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

Outcome<std::unique_ptr<WorkDir>> make_work_dir(const fs::path& out) {
  using Result = Outcome<std::unique_ptr<WorkDir>>;
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return Result::fail(parent.string() + ": " + ec.message());
  std::string prefix = "." + out.filename().string() + ".build.";
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    if (!e.path().filename().string().starts_with(prefix)) continue;
    auto lock = FileLock::try_lock(e.path().string(), FileLock::Mode::exclusive);
    if (lock.ok() && *lock) fs::remove_all(e.path(), ec);
  }
  std::string templ = (parent / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(templ.data())) return Result::fail(templ + ": " + std::strerror(errno));
  auto w = std::make_unique<WorkDir>();
  w->path = templ;
  auto lock = FileLock::try_lock(templ, FileLock::Mode::exclusive);
  if (!lock.ok() || !*lock) return Result::fail(templ + ": cannot lock the work directory");
  w->lock.emplace(std::move(**lock));
  return w;
}

// The finished image replaces the output directory in two renames; a reader sees the old
// image or the new one, and nothing half-written ever carries the output's name.
Status move_into_place(const std::string& image, const fs::path& out, const std::string& work) {
  std::error_code ec;
  fs::path old = fs::path(work) / "previous";
  bool replacing = fs::exists(out, ec);
  if (replacing && std::rename(out.c_str(), old.c_str()) != 0)
    return Status::fail(out.string() + ": " + std::strerror(errno));
  if (std::rename(image.c_str(), out.c_str()) != 0) {
    std::string why = std::strerror(errno);
    if (replacing) std::rename(old.c_str(), out.c_str());
    return Status::fail(out.string() + ": " + why);
  }
  return success();
}

std::uint64_t tree_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) total += it->file_size(ec);
  return total;
}

}  // namespace

Outcome<BuildReport> run_build_stages(const BuildRequest& req, OpenSslHasher& hasher,
                                      const std::function<void(const std::string&)>& progress) {
  using Result = Outcome<BuildReport>;
  auto start = SteadyClock::now();
  fs::path out = fs::path(req.out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  auto work = make_work_dir(out);
  if (!work.ok()) return Result::fail(work.error());
  std::string root = (*work)->path + "/root", image = (*work)->path + "/image";
  std::unique_ptr<OverlayRoot> layered;  // unmounted before the work directory is removed

  std::optional<StageCache> cache;
  std::optional<FileLock> cache_hold;
  std::vector<bool> cached;
  std::string reused_output;
  std::uint64_t reused_bytes = 0;
  if (!req.cache_dir.empty()) {
    cache.emplace(req.cache_dir, hasher);
    auto held = cache->hold_shared();
    if (!held.ok()) return Result::fail(held.error());
    if (!*held) return Result::fail(req.cache_dir + ": a cache prune is running; try again when it is done");
    cache_hold.emplace(std::move(**held));
    if (auto cleaned = cache->clean_tmp(); !cleaned.ok()) return Result::fail(cleaned.error());
    // Only the last stored stage that verifies matters: look from the end, and stop there
    // (verifying an entry hashes all of it).
    cached.assign(req.plan.stages.size(), false);
    for (std::size_t i = req.plan.stages.size(); i-- > 0;) {
      const StagePlan& s = req.plan.stages[i];
      if (!stage_is_stored(s.stage)) continue;
      CacheLookup l = cache->lookup(s.stage, s.key);
      if (l.hit) {
        cached[i] = true;
        reused_output = l.output;
        reused_bytes = l.size;
        break;
      }
      if (l.why_not != "absent")
        progress("note: " + to_string(s.stage) + " entry " + s.key.substr(0, kKeyPrefix) + " not used: " + l.why_not);
    }
  }
  std::vector<StageAction> actions =
      cached.empty() ? std::vector<StageAction>(req.plan.stages.size(), StageAction::build) : decide_actions(cached);

  ProcessRunner runner(req.log_path);
  const std::string downloads = req.cache_dir.empty() ? (*work)->path + "/downloads" : req.cache_dir + "/downloads";
  PackagePool packages(downloads + "/" + kPackagePoolDir, hasher);
  BuildReport report;
  const std::size_t n = req.plan.stages.size();
  for (std::size_t i = 0; i < n; ++i) {
    const StagePlan& sp = req.plan.stages[i];
    std::string label = "[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " + to_string(sp.stage);
    std::string output = sp.stage == Stage::pack ? image : root;
    auto t0 = SteadyClock::now();
    if (actions[i] == StageAction::skip) {
      report.stages.push_back({sp.stage, "skipped", 0, 0});
      continue;
    }
    if (actions[i] == StageAction::reuse) {
      progress(label + ": reusing " + sp.key.substr(0, kKeyPrefix) + " from the cache");
      // The image root is layered over the entry when it can be; the artifacts are copied
      // (they are few, and the output must not share the cache's files).
      if (sp.stage != Stage::pack && req.private_mounts) {
        auto mounted = OverlayRoot::mount(reused_output, (*work)->path + "/layers", output);
        if (mounted.ok()) layered = std::move(*mounted);
        else progress("      " + mounted.error() + "; copying the entry instead");
      }
      if (!layered)
        if (auto s = copy_tree(reused_output, output); !s.ok()) return Result::fail(s.error());
      report.stages.push_back({sp.stage, "reused", since(t0), reused_bytes});
      progress(label + ": reused in " + seconds_text(report.stages.back().seconds) +
               (layered ? " (an overlay over the cache entry)" : ""));
      continue;
    }
    progress(label + ": building " + sp.key.substr(0, kKeyPrefix) + " (" + sp.summary + ")");
    StageContext ctx{
        req.recipe, req.plan,    root,   image,  downloads,
        req.where,  req.digests, runner, hasher, [&](const std::string& line) { progress("      " + line); },
        &packages};
    if (auto s = run_stage(sp.stage, ctx); !s.ok()) return Result::fail(label + ": " + s.error());
    double built = since(t0);
    std::uint64_t bytes = 0;
    const bool store = cache && stage_worth_storing(sp.stage, built);
    if (store) {
      auto pending = cache->begin(sp.stage, sp.key);
      if (!pending.ok()) return Result::fail(label + ": " + pending.error());
      if (auto s = copy_tree(output, pending->output()); !s.ok())
        return Result::fail(label + ": caching: " + s.error());
      auto committed = cache->commit(std::move(*pending));
      if (!committed.ok()) return Result::fail(label + ": caching: " + committed.error());
    }
    // Sizes where they cost nothing next to the stage: a walk of the whole image through the
    // overlay after every stage would add a few tenths of a second to a rebuild.
    if (store || sp.stage == Stage::pack) bytes = tree_bytes(output);
    report.stages.push_back({sp.stage, "built", since(t0), bytes});
    progress(label + ": built in " + seconds_text(built) +
             (store                                ? " (cached in " + seconds_text(since(t0) - built) + ")"
              : cache && stage_is_stored(sp.stage) ? " (not cached: quicker to redo than to store)"
                                                   : ""));
  }
  if (auto s = move_into_place(image, out, (*work)->path); !s.ok()) return Result::fail(s.error());
  report.seconds = since(start);
  return report;
}

std::string render_build_summary(const BuildReport& report, const std::string& out_dir) {
  std::ostringstream o;
  o << "\nSTAGE     ACTION   TIME     SIZE\n";
  for (const auto& s : report.stages) {
    char line[128];
    std::string size = s.bytes ? std::to_string(s.bytes >> 20) + " MiB" : "-";
    std::snprintf(line, sizeof line, "%-9s %-8s %-8s %s\n", to_string(s.stage).c_str(), s.action.c_str(),
                  s.action == "skipped" ? "-" : seconds_text(s.seconds).c_str(), size.c_str());
    o << line;
  }
  o << "total " << seconds_text(report.seconds) << ": " << out_dir << "\n";
  return o.str();
}

}  // namespace railyard
