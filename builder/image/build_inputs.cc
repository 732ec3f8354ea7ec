#include "build_inputs.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "text.h"
#include "tree_scan.h"
#include "version.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

// The apt sources a "host" mirror bootstraps from, in a fixed order.
Outcome<std::string> digest_apt_sources(const std::string& apt_dir, OpenSslHasher& hasher) {
  std::vector<std::string> files = host_apt_source_files(apt_dir);
  if (files.empty()) return std::string();
  std::string listing;
  for (const auto& f : files) {
    auto d = hasher.sha256_file(f);
    if (!d.ok()) return Outcome<std::string>::fail(d.error());
    listing += f + " " + *d + "\n";
  }
  return hasher.sha256_hex(listing);
}

}  // namespace

std::vector<std::string> host_apt_source_files(const std::string& apt_dir) {
  std::vector<std::string> files;
  std::error_code ec;
  // An empty sources.list (deb822 hosts keep one) would be an empty mirror to mmdebstrap.
  if (fs::is_regular_file(apt_dir + "/sources.list", ec) && fs::file_size(apt_dir + "/sources.list", ec) > 0)
    files.push_back(apt_dir + "/sources.list");
  std::vector<std::string> parts;
  if (fs::is_directory(apt_dir + "/sources.list.d", ec))
    for (const auto& e : fs::directory_iterator(apt_dir + "/sources.list.d", ec)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file(ec) && (ext == ".list" || ext == ".sources")) parts.push_back(e.path().string());
    }
  std::sort(parts.begin(), parts.end());
  files.insert(files.end(), parts.begin(), parts.end());
  return files;
}

Outcome<ContentDigests> digest_inputs(const LoadedRecipe& lr, const InputLocations& where, OpenSslHasher& hasher) {
  using Result = Outcome<ContentDigests>;
  ContentDigests d;
  std::error_code ec;
  for (const auto& name : lr.recipe.image.overlays) {
    std::string dir = path_join(where.overlays_dir, name);
    if (where.overlays_dir.empty() || !fs::is_directory(dir, ec)) continue;
    auto tree = scan_tree(dir, hasher);
    if (!tree.ok()) return Result::fail(tree, "overlay " + name);
    d.overlays[name] = hasher.sha256_hex(tree_listing(*tree));
  }
  for (const auto& lm : lr.drivers) {
    const DriverManifest& m = lm.manifest;
    if (m.kind == DriverKind::source && fs::is_directory(m.source_dir(), ec)) {
      auto tree = scan_tree(m.source_dir(), hasher);
      if (!tree.ok()) return Result::fail(tree, "driver bundle " + m.name + "'s source");
      d.driver_sources[m.name] = hasher.sha256_hex(tree_listing(*tree));
    }
    if (m.apt.key_file.empty()) continue;
    std::string key = path_join(dir_name(m.path), m.apt.key_file);
    if (!fs::is_regular_file(key, ec)) continue;
    auto digest = hasher.sha256_file(key);
    if (!digest.ok()) return Result::fail(digest, "driver bundle " + m.name);
    d.driver_keys[m.name] = *digest;
  }
  if (lr.recipe.image.mirror == "host") {
    auto sources = digest_apt_sources(where.apt_dir, hasher);
    if (!sources.ok()) return Result::fail(sources, "the host's apt sources");
    d.host_apt_sources = *sources;
  }
  if (!where.agent.empty()) {
    auto agent = hasher.sha256_file(where.agent);
    if (!agent.ok()) return Result::fail(agent, "the agent");
    d.agent = *agent;
  }
  return d;
}

std::string find_agent_package(const std::string& self_exe) {
  std::error_code ec;
  fs::path bindir = fs::path(self_exe).parent_path();
  std::string prefix = std::string("railyard-firstboot_") + kVersion + "_";
  for (const fs::path& dir : {bindir / "packages", bindir / "../share/railyard/packages"})
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".deb") && e.is_regular_file(ec)) return e.path().string();
    }
  return "";
}

}  // namespace railyard
