#include "build_tools.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "image_files.h"
#include "manifest.h"
#include "text.h"

namespace railyard {

Outcome<std::set<std::string>> installed_package_names(const std::string& root) {
  auto status = read_whole_file(root + "/var/lib/dpkg/status");
  if (!status.ok()) return Outcome<std::set<std::string>>::fail(status.error());
  std::set<std::string> out;
  for (const auto& p : installed_packages(*status)) out.insert(p.name);
  return out;
}

std::vector<std::string> simulated_purges(const std::string& apt_output) {
  std::vector<std::string> out;
  for (const auto& line : split(apt_output, '\n')) {
    if (!line.starts_with("Purg ") && !line.starts_with("Remv ")) continue;
    std::string name = line.substr(5, line.find(' ', 5) - 5);
    out.push_back(name.substr(0, name.find(':')));  // "libfoo:amd64" names the package libfoo
  }
  std::sort(out.begin(), out.end());
  return out;
}

Outcome<BuildTools> remove_build_tools(StageContext& ctx, const std::set<std::string>& added,
                                       const std::set<std::string>& stage_added,
                                       const std::vector<std::string>& modules, const std::string& kver) {
  using Result = Outcome<BuildTools>;
  BuildTools t;
  if (added.empty()) return t;
  std::vector<std::string> names(added.begin(), added.end());
  std::vector<std::string> simulate = {"apt-get", "-s", "-q", "purge"};
  simulate.insert(simulate.end(), names.begin(), names.end());
  auto plan = ctx.runner.capture(in_image(ctx.root, simulate, "what purging the DKMS build tools would remove"));
  if (!plan.ok()) return Result::fail(plan.error());
  std::vector<std::string> others, base;
  for (const auto& p : simulated_purges(*plan))
    if (!added.count(p)) (stage_added.count(p) ? others : base).push_back(p);
  if (!base.empty()) {
    t.kept = names;
    t.why_kept = "removing them would also remove " + join(base, ", ") + ", which depend" +
                 (base.size() == 1 ? "s" : "") + " on them";
    return t;
  }
  // The packages going with the tools, with their versions, before they go.
  if (!others.empty()) {
    auto status = read_whole_file(ctx.root + "/var/lib/dpkg/status");
    if (!status.ok()) return Result::fail(status.error());
    for (const auto& p : installed_packages(*status))
      if (std::find(others.begin(), others.end(), p.name) != others.end())
        t.sources_removed.push_back(p.name + " " + p.version);
    std::sort(t.sources_removed.begin(), t.sources_removed.end());
  }
  // The built modules, set aside: a DKMS source package's removal script unregisters them
  // (dkms remove), which deletes what it installed.
  struct Kept {
    std::string path, bytes;
  };
  std::vector<Kept> kept;
  if (!others.empty())
    for (const auto& m : modules) {
      auto bytes = read_whole_file(ctx.root + "/" + m);
      if (!bytes.ok()) return Result::fail("keep the built module " + m + ": " + bytes.error());
      kept.push_back({m, std::move(*bytes)});
    }
  std::vector<std::string> purge = {"apt-get", "purge", "-y", "-q"};
  purge.insert(purge.end(), names.begin(), names.end());
  purge.insert(purge.end(), others.begin(), others.end());
  Command c = in_image(ctx.root, purge, "purge the DKMS build tools");
  c.env["DEBIAN_FRONTEND"] = "noninteractive";
  if (auto s = ctx.runner.run(c); !s.ok()) return Result::fail(s.error());
  std::error_code ec;
  for (const auto& k : kept) {
    std::filesystem::create_directories(std::filesystem::path(ctx.root + "/" + k.path).parent_path(), ec);
    if (auto s = write_file_atomically(ctx.root + "/" + k.path, k.bytes); !s.ok()) return Result::fail(s.error());
  }
  if (!kept.empty())
    if (auto s = ctx.runner.run(in_image(ctx.root, {"depmod", "-a", kver}, "depmod " + kver + " for the kept modules"));
        !s.ok())
      return Result::fail(s.error());
  // DKMS's state (its build trees, make logs) and settings, and the sources of
  // source bundles serve nothing once dkms is gone; the modules stay in /lib/modules.
  std::filesystem::remove_all(ctx.root + "/var/lib/dkms", ec);
  std::filesystem::remove_all(ctx.root + "/etc/dkms", ec);  // what dpkg left: railyard's own settings
  for (const auto& lm : ctx.recipe.drivers)
    if (lm.manifest.kind == DriverKind::source && !lm.manifest.dkms.empty())
      std::filesystem::remove_all(ctx.root + "/usr/src/" + lm.manifest.dkms.front() + "-" + lm.manifest.version, ec);
  t.removed = names;
  t.removed.insert(t.removed.end(), others.begin(), others.end());
  std::sort(t.removed.begin(), t.removed.end());
  return t;
}

std::string render_build_tools_record(const BuildTools& t) {
  nlohmann::ordered_json j = {
      {"removed", t.removed}, {"kept", t.kept}, {"why_kept", t.why_kept}, {"sources_removed", t.sources_removed}};
  return j.dump(2) + "\n";
}

Outcome<BuildTools> parse_build_tools_record(const std::string& text, const std::string& path) {
  using Result = Outcome<BuildTools>;
  auto j = nlohmann::json::parse(text, nullptr, false);
  auto names = [&](const char* key, std::vector<std::string>& out) {
    if (!j.contains(key) || !j[key].is_array()) return false;
    for (const auto& n : j[key]) {
      if (!n.is_string() || !first_control(n.get<std::string>()).empty()) return false;
      out.push_back(n.get<std::string>());
    }
    return true;
  };
  BuildTools t;
  if (j.is_discarded() || !j.is_object() || !names("removed", t.removed) || !names("kept", t.kept) ||
      !j.contains("why_kept") || !j["why_kept"].is_string())
    return Result::fail(path +
                        ": not a build tools record ({\"removed\": [...], \"kept\": [...], \"why_kept\": \"...\"})");
  t.why_kept = j["why_kept"].get<std::string>();
  if (j.contains("sources_removed") && !names("sources_removed", t.sources_removed))
    return Result::fail(path + ": sources_removed is not a list of names");
  return t;
}

}  // namespace railyard
