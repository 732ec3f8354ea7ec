// Its cache key (what defines the trim stage) is computed purely in core/build_plan.cc (plan_build).
#include "trim.h"

#include <filesystem>

#include "image/image_manifest.h"
#include "image_files.h"
#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

bool is_dropped(const std::string& path, const std::vector<std::string>& dropped) {
  for (const auto& d : dropped) {
    std::string prefix = "kernel/" + d + "/";
    if (path.starts_with(prefix)) return true;
  }
  return false;
}

std::vector<std::string> stranded_modules(const std::string& modules_dep, const std::vector<std::string>& dropped) {
  std::vector<std::string> out;
  for (const auto& line : split(modules_dep, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string module = line.substr(0, colon);
    if (is_dropped(module, dropped)) continue;
    for (const auto& dep : split(trim(line.substr(colon + 1)), ' '))
      if (!dep.empty() && is_dropped(dep, dropped)) {
        out.push_back(module);
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status run_trim(StageContext& ctx) {
  auto kver = image_kernel_version(ctx.root);
  if (!kver.ok()) return Status::fail(kver.error());
  std::vector<std::string> dropped = ctx.recipe.recipe.image.drop_modules;
  std::sort(dropped.begin(), dropped.end());
  dropped.erase(std::unique(dropped.begin(), dropped.end()), dropped.end());
  fs::path moddir = fs::path(ctx.root) / "lib/modules" / *kver;
  auto dep = read_whole_file((moddir / "modules.dep").string());
  if (!dep.ok()) return Status::fail(dep.error());
  std::vector<std::string> stranded = stranded_modules(*dep, dropped);
  // Modules a driver bundle built on purpose are never dropped quietly: the recipe asked for
  // both, and they contradict each other.
  const std::string drivers_record = ctx.root + "/" + kImageRecordDir + "/drivers.json";
  if (auto record = read_whole_file(drivers_record); record.ok()) {
    auto bundles = parse_drivers_record(*record, drivers_record);
    if (!bundles.ok()) return Status::fail(bundles.error());
    std::vector<std::string> wanted;
    for (const auto& b : *bundles)
      for (const auto& k : b.dkms)
        for (const auto& f : k.files)
          for (const auto& m : stranded)
            if (f == "lib/modules/" + *kver + "/" + m)
              wanted.push_back(m + " (DKMS module " + k.module + " of driver bundle " + b.name + ")");
    if (!wanted.empty())
      return Status::fail("image.drop_modules removes what driver modules need; keep those directories:\n  " +
                          join(wanted, "\n  ") + "\n  (modules.dep names what each needs)");
  }
  ImageManifest record;  // its trim part
  record.trim_kernel = *kver;
  record.trim_dropped = dropped;
  record.trim_stranded = stranded;
  for (const auto& d : dropped) {
    fs::path dir = moddir / "kernel" / d;
    std::error_code ec;
    std::uint64_t dir_files = 0, dir_bytes = 0;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec)) {
        ++dir_files;
        dir_bytes += it->file_size(ec);
      }
    fs::remove_all(dir, ec);
    if (ec) return Status::fail(dir.string() + ": " + ec.message());
    record.trim_files += dir_files;
    record.trim_bytes += dir_bytes;
    record.trim_dirs.push_back({d, dir_files, dir_bytes});
  }
  for (const auto& m : stranded) {
    std::error_code ec;
    fs::path p = moddir / m;
    std::uint64_t size = fs::file_size(p, ec);
    if (ec) return Status::fail(p.string() + ": listed in modules.dep: " + ec.message());
    fs::remove(p, ec);
    ++record.trim_files;
    record.trim_bytes += size;
  }
  ctx.step("dropped " + std::to_string(record.trim_files) + " module files (" +
           std::to_string(record.trim_bytes >> 20) + " MiB), " + std::to_string(stranded.size()) +
           " of them elsewhere but needing a dropped module; depmod " + *kver);
  if (auto s = ctx.runner.run(in_image(ctx.root, {"depmod", "-a", *kver}, "depmod " + *kver)); !s.ok()) return s;
  return write_file_atomically(ctx.root + "/" + kImageRecordDir + "/trim.json", render_trim_record(record));
}

}  // namespace railyard
