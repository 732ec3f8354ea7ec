// The overlays stage: overlays/<name>/ copied over the image in the recipe's order (later
// ones win), every entry owned by root with the permission bits it has in the repository.
// Its cache key (what defines the overlays stage) is computed purely in core/build_plan.cc (plan_build).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "stage.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

Status fail_at(const fs::path& p, const std::string& what) {
  return Status::fail(p.string() + ": " + what + ": " + std::strerror(errno));
}

Status copy_entry(const fs::path& src, const fs::path& dst) {
  struct stat st {};
  if (::lstat(src.c_str(), &st) != 0) return fail_at(src, "lstat");
  std::error_code ec;
  struct stat existing {};
  bool exists = ::lstat(dst.c_str(), &existing) == 0;
  if (S_ISDIR(st.st_mode)) {
    if (exists && !S_ISDIR(existing.st_mode)) fs::remove(dst, ec);
    if (!exists || !S_ISDIR(existing.st_mode))
      if (::mkdir(dst.c_str(), 0755) != 0) return fail_at(dst, "mkdir");
  } else if (S_ISLNK(st.st_mode)) {
    if (exists) fs::remove_all(dst, ec);
    fs::copy_symlink(src, dst, ec);
    if (ec) return Status::fail(dst.string() + ": " + ec.message());
    if (::lchown(dst.c_str(), 0, 0) != 0) return fail_at(dst, "lchown");
    return success();
  } else if (S_ISREG(st.st_mode)) {
    // A directory in the way is replaced; a file is rewritten through a new inode so that
    // a hard link elsewhere in the image keeps its old content.
    if (exists) fs::remove_all(dst, ec);
    fs::copy_file(src, dst, ec);
    if (ec) return Status::fail(dst.string() + ": " + ec.message());
  } else {
    return Status::fail(src.string() + ": overlays hold files, directories and symbolic links only");
  }
  if (::lchown(dst.c_str(), 0, 0) != 0) return fail_at(dst, "chown");
  if (::chmod(dst.c_str(), st.st_mode & 07777) != 0) return fail_at(dst, "chmod");
  return success();
}

}  // namespace

Status run_overlays(StageContext& ctx) {
  for (const auto& name : ctx.recipe.recipe.image.overlays) {
    fs::path dir = path_join(ctx.where.overlays_dir, name);
    std::error_code ec;
    if (ctx.where.overlays_dir.empty() || !fs::is_directory(dir, ec))
      return Status::fail("overlay " + name + ": no directory " + dir.string());
    std::vector<fs::path> entries;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      entries.push_back(it->path());
    if (ec) return Status::fail(dir.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());  // parents before their children
    ctx.step("overlay " + name + ": " + std::to_string(entries.size()) + " entries");
    for (const auto& e : entries)
      if (auto s = copy_entry(e, fs::path(ctx.root) / e.lexically_relative(dir)); !s.ok()) return s;
  }
  return success();
}

}  // namespace railyard
