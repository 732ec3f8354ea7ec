#include "recipe_loader.h"

#include <algorithm>
#include <sstream>

#include "text.h"
#include "toml_file.h"

namespace railyard {

namespace {

std::string default_kernel(const Recipe& r) {
  if (r.image.distro == Distro::ubuntu) return "linux-image-generic";
  return r.image.arch == Arch::arm64 ? "linux-image-arm64" : "linux-image-amd64";
}

// Soft-RoCE rails sit on NICs without DCB (virtio in the lab) unless a lab bundle emulates
// it; a bundle that emulates hardware never goes into a production (non-Soft-RoCE) image.
template <class At>
void check_lab_stand_ins(const LoadedRecipe& lr, const At& at, Diagnostics& diags) {
  const Recipe& r = lr.recipe;
  const FabricSpec& f = r.fabric;
  bool dcb = false;
  for (std::size_t i = 0; i < lr.drivers.size(); ++i) {
    const DriverManifest& m = lr.drivers[i].manifest;
    dcb = dcb || m.emulates_dcb();
    if (m.lab_stand_in() && !f.soft_roce && !lr.failed.count("fabric.soft_roce")) {
      auto it = std::find(r.image.drivers.begin(), r.image.drivers.end(), m.name);
      diags.error(at("image.drivers[" + std::to_string(it - r.image.drivers.begin()) + "]"),
                  "image.drivers: bundle '" + m.name + "' is a lab stand-in (emulates " + join(m.emulates, ", ") +
                      " in software); only a lab recipe (fabric.soft_roce = true) may use it");
    }
  }
  if (dcb) return;
  auto ok = [&](const char* key) { return !lr.failed.count(key) && !lr.failed.count("fabric.soft_roce"); };
  if (f.soft_roce && f.pfc == Requirement::required && ok("fabric.pfc"))
    diags.error(at("fabric.pfc"),
                "fabric.pfc = \"required\" cannot hold with fabric.soft_roce = true: Soft-RoCE (rxe) "
                "devices have no DCB; use \"best-effort\", or a lab bundle that emulates DCB "
                "(emulates = [\"dcb\"], as drivers/railyard-lab-qos.toml)");
  if (f.soft_roce && f.ecn == Requirement::required && ok("fabric.ecn"))
    diags.error(at("fabric.ecn"),
                "fabric.ecn = \"required\" cannot hold with fabric.soft_roce = true: Soft-RoCE has no "
                "ECN/DCQCN; use \"best-effort\", or a lab bundle that emulates DCB");
}

void check_references(const FileSource& files, LoadedRecipe& lr, const RecipeOptions& opts, Diagnostics& diags) {
  const Recipe& r = lr.recipe;
  // A key left at its default has no position: its table's, else the file's top.
  auto at = [&](const std::string& key) {
    for (std::string k = key; !k.empty();
         k = k.substr(0, k.find_last_of(".[") == std::string::npos ? 0 : k.find_last_of(".[")))
      if (auto it = lr.positions.find(k); it != lr.positions.end()) return it->second;
    return SourcePos{lr.path, 1, 1};
  };
  std::string here = dir_name(lr.path);
  std::string drivers = opts.drivers_dir.empty() ? find_dir_upwards(files, here, "drivers") : opts.drivers_dir;
  std::string overlays = opts.overlays_dir.empty() ? find_dir_upwards(files, here, "overlays") : opts.overlays_dir;

  std::vector<std::string> seen;
  for (std::size_t i = 0; i < r.image.drivers.size(); ++i) {
    const std::string& name = r.image.drivers[i];
    SourcePos pos = at("image.drivers[" + std::to_string(i) + "]");
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      diags.error(pos, "image.drivers: bundle '" + name + "' is listed twice");
      continue;
    }
    seen.push_back(name);
    if (drivers.empty()) {
      diags.error(pos, "image.drivers: cannot find a drivers/ directory beside or above the recipe to look up '" +
                           name + "' (pass --drivers DIR)");
      continue;
    }
    std::string mpath = path_join(drivers, name + ".toml");
    if (!files.is_file(mpath)) {
      diags.error(pos, "image.drivers: no driver bundle '" + name + "' (" + mpath + " does not exist)");
      continue;
    }
    Diagnostics mdiags;
    auto m = load_driver_manifest(files, mpath, mdiags);
    if (!m) {
      diags.error(pos, "image.drivers: bundle '" + name + "' is invalid (" + std::to_string(mdiags.size()) +
                           " error(s) in " + mpath + ")");
      diags.append(mdiags);
      continue;
    }
    std::string distro = to_string(r.image.distro);
    bool target_known =
        !lr.failed.count("image.distro") && !lr.failed.count("image.suite") && !lr.failed.count("image");
    if (target_known && !m->manifest.supports(distro, r.image.suite))
      diags.error(pos, "image.drivers: bundle '" + name + "' installs on " + join(m->manifest.suites, ", ") +
                           ", not on " + distro + ":" + r.image.suite);
    lr.drivers.push_back(std::move(*m));
  }
  check_lab_stand_ins(lr, at, diags);
  for (const auto& a : lr.drivers)
    for (const auto& b : lr.drivers)
      if (std::find(a.manifest.conflicts.begin(), a.manifest.conflicts.end(), b.manifest.name) !=
          a.manifest.conflicts.end())
        diags.error(at("image.drivers"), "image.drivers: bundle '" + a.manifest.name + "' conflicts with '" +
                                             b.manifest.name + "' (see " + a.manifest.path + ")");

  for (std::size_t i = 0; i < r.image.overlays.size(); ++i) {
    const std::string& name = r.image.overlays[i];
    SourcePos pos = at("image.overlays[" + std::to_string(i) + "]");
    if (overlays.empty()) {
      diags.error(pos, "image.overlays: cannot find an overlays/ directory beside or above the recipe to look up '" +
                           name + "' (pass --overlays DIR)");
    } else if (!files.is_directory(path_join(overlays, name))) {
      diags.error(pos, "image.overlays: no overlay '" + name + "' (" + path_join(overlays, name) + "/ does not exist)");
    }
  }
}

}  // namespace

std::string find_dir_upwards(const FileSource& files, const std::string& start_dir, const std::string& child) {
  // The core makes no system calls, so no getcwd: above a relative directory's top lies "..".
  std::string dir = start_dir.empty() ? "." : normalize_path(start_dir);
  for (int depth = 0; depth < 16; ++depth) {
    std::string candidate = path_join(dir, child);
    if (files.is_directory(candidate)) return candidate;
    if (dir == "/") break;
    if (dir == ".") dir = "..";
    else if (dir == ".." || dir.ends_with("/..")) dir += "/..";
    else if ((dir = dir_name(dir)).empty()) dir = ".";
  }
  return "";
}

Recipe default_recipe() {
  Recipe r;
  Diagnostics ignored;  // only "image.suite is missing": no image is built from this
  schema::Positions positions;
  schema::ParseContext ctx{ignored, positions, "<defaults>"};
  recipe_schema().parse(toml::table{}, r, ctx);
  r.name = "defaults";
  return r;
}

int fixed_rail_count(const Recipe& r) {
  if (r.hardware.rail_count > 0) return r.hardware.rail_count;
  return static_cast<int>(r.hardware.rails.size());
}

std::optional<LoadedRecipe> load_recipe(const FileSource& files, const std::string& path, const RecipeOptions& opts,
                                        Diagnostics& diags) {
  std::size_t before = diags.size();
  auto table = read_toml_extends(files, path, diags);
  if (!table) return std::nullopt;
  LoadedRecipe lr;
  lr.path = path;
  schema::ParseContext ctx{diags, lr.positions, path, &lr.failed};
  recipe_schema().parse(*table, lr.recipe, ctx);
  if (lr.recipe.name.empty()) lr.recipe.name = file_stem(path);
  if (lr.recipe.image.kernel.empty()) lr.recipe.image.kernel = default_kernel(lr.recipe);
  validate_recipe(lr.recipe, lr.positions, lr.failed, path, diags);
  if (opts.check_references) check_references(files, lr, opts, diags);
  if (diags.size() != before) return std::nullopt;
  return lr;
}

namespace {

// Every key with its value, defaults filled, but for image.mirror with a vendor root
// filesystem: it is unused there, and the loader refuses the two together, so that the
// recipe an image carries would not load again (the agent's, audit's and qemu's read).
toml::table resolved_table(const Recipe& r) {
  toml::table t = recipe_schema().render(r);
  if (!r.image.rootfs_url.empty())
    if (auto* image = t["image"].as_table()) image->erase("mirror");
  return t;
}

}  // namespace

std::string render_recipe_toml(const Recipe& r) {
  std::ostringstream out;
  out << toml::toml_formatter(resolved_table(r)) << "\n";
  return out.str();
}

std::string render_recipe_json(const Recipe& r) {
  std::ostringstream out;
  out << toml::json_formatter(resolved_table(r)) << "\n";
  return out.str();
}

}  // namespace railyard
