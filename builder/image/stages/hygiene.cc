// The hygiene stage: applies core/image_hygiene.h's rules, so that no node inherits the
// build's identity (machine id, host keys, NVMe host NQN) and no two builds differ by
// their logs, caches or backups.
// Its cache key (what defines the hygiene stage) is computed purely in core/build_plan.cc (plan_build).
#include <filesystem>
#include <fstream>

#include "apt.h"
#include "image_files.h"
#include "image_hygiene.h"
#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// Every existing path under `root` that `pattern` ("/etc/ssh/ssh_host_*") names.
std::vector<fs::path> expand(const fs::path& root, const std::string& pattern) {
  std::vector<fs::path> current{root};
  for (const auto& part : split(pattern.substr(1), '/')) {
    std::vector<fs::path> next;
    for (const auto& dir : current) {
      std::error_code ec;
      if (part.find_first_of("*?") == std::string::npos) {
        fs::path p = dir / part;
        if (fs::exists(fs::symlink_status(p, ec))) next.push_back(p);
        continue;
      }
      if (!fs::is_directory(fs::symlink_status(dir, ec))) continue;
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (glob_match(part, e.path().filename().string())) next.push_back(e.path());
    }
    current = std::move(next);
  }
  std::sort(current.begin(), current.end());
  return current;
}

// systemd runs the units with ConditionNeedsUpdate=/etc (systemd-sysusers in Debian 12) at
// every boot of a root whose /etc has no .updated stamp at least as new as /usr: on a
// stateless node, every boot, seconds of it under emulation. The build has done what they
// do, so the image says so: users from sysusers.d are created now (package scripts have
// done it already; this makes sure) and the stamp is written last, so that its time, clamped
// to SOURCE_DATE_EPOCH like every other, is never older than /usr's.
Status mark_etc_updated(StageContext& ctx) {
  std::error_code ec;
  bool sysusers = false;
  for (const char* bin : {"usr/bin/systemd-sysusers", "bin/systemd-sysusers"})
    sysusers = sysusers || fs::exists(fs::path(ctx.root) / bin, ec);
  if (!sysusers) return success();
  if (auto s = ctx.runner.run(in_image(ctx.root, {"systemd-sysusers"}, "create the system users of sysusers.d"));
      !s.ok())
    return s;
  return write_file_atomically(
      ctx.root + "/etc/.updated",
      "# Written by the railyard build once /etc was complete for this /usr: units with\n"
      "# ConditionNeedsUpdate=/etc (see systemd-update-done.service(8)) have nothing to do.\n");
}

// A mask rule: `rule.pattern` made a link to /dev/null where the image has what it masks
// and not what would give that work. Returns whether it made one.
Outcome<bool> apply_mask(const fs::path& root, const HygieneRule& rule) {
  std::error_code ec;
  const fs::path link = root / rule.pattern.substr(1);
  if (!fs::exists(root / rule.masks.substr(1), ec)) return false;
  if (!rule.unless.empty() && fs::exists(fs::symlink_status(root / rule.unless.substr(1), ec))) return false;
  if (fs::is_symlink(fs::symlink_status(link, ec)) && fs::read_symlink(link, ec) == "/dev/null") return false;
  fs::remove_all(link, ec);
  fs::create_directories(link.parent_path(), ec);
  if (!ec) fs::create_symlink("/dev/null", link, ec);
  if (ec)
    return Outcome<bool>::fail(link.string() + ": " + ec.message() + " (masking " + rule.masks + ": " + rule.why + ")");
  return true;
}

}  // namespace

Status run_hygiene(StageContext& ctx) {
  // The build's own scaffolding goes first, so that the rules see the image as shipped.
  if (auto s = restore_initramfs(ctx); !s.ok()) return s;
  std::size_t touched = 0;
  for (const auto& rule : hygiene_rules()) {
    if (rule.action == HygieneRule::mask) {
      auto made = apply_mask(ctx.root, rule);
      if (!made.ok()) return made.status();
      touched += *made;
      continue;
    }
    for (const auto& p : expand(ctx.root, rule.pattern)) {
      std::error_code ec;
      switch (rule.action) {
        case HygieneRule::empty_file: {
          if (fs::file_size(p, ec) == 0 && !ec) break;
          std::ofstream(p, std::ios::trunc).flush();
          ++touched;
          break;
        }
        case HygieneRule::remove:
          fs::remove_all(p, ec);
          ++touched;
          break;
        case HygieneRule::remove_files_below: {
          std::vector<fs::path> files;
          for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
               it.increment(ec))
            if (!it->is_directory(ec)) files.push_back(it->path());
          for (const auto& f : files) fs::remove(f, ec);
          touched += files.size();
          break;
        }
        case HygieneRule::mask: break;  // above
      }
      if (ec) return Status::fail(p.string() + ": " + ec.message() + " (" + rule.why + ")");
    }
  }
  ctx.step(std::to_string(hygiene_rules().size()) + " rules, " + std::to_string(touched) + " paths cleaned");
  return mark_etc_updated(ctx);
}

}  // namespace railyard
