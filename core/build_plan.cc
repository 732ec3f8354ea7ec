#include "build_plan.h"

#include <algorithm>
#include <sstream>

#include "driver_manifest.h"
#include "image_hygiene.h"
#include "text.h"
#include "version.h"

namespace railyard {

namespace {

// Bumped when a stage's code starts producing different output from the same inputs, so
// that old cache entries stop matching. Indexed by Stage.
constexpr int kStageVersion[] = {3, 4, 1, 2, 3, 2, 2};
static_assert(std::size(kStageVersion) == kStages.size());

struct Defined {
  toml::table inputs;
  std::string summary;
};

toml::array strings(const std::vector<std::string>& v) {
  toml::array a;
  for (const auto& s : v) a.push_back(s);
  return a;
}

// For lists whose order and duplicates do not change the result (packages to install,
// module directories to drop), so that reordering a recipe keeps its cache entries.
std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string or_missing(const std::string& digest) { return digest.empty() ? "missing" : digest; }
std::string short_digest(const std::string& digest) { return digest.empty() ? "MISSING" : digest.substr(0, 8); }
std::string lookup(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? "" : it->second;
}

Defined define_base(const Recipe& r, const ContentDigests& d, const BuildSettings& s) {
  // The key table renders enums by their file names; reuse it rather than spell them twice.
  toml::table rendered = recipe_schema().render(r);
  const toml::table& image = *rendered["image"].as_table();
  Defined out;
  // A vendor root filesystem is its sha256 (the URL may move); a bootstrap is its mirror.
  const bool tarball = !r.image.rootfs_url.empty();
  for (const char* k : {"distro", "suite", "arch", "components", "kernel"})
    if (const toml::node* n = image.get(k)) out.inputs.insert_or_assign(k, *n);
  if (tarball) out.inputs.insert_or_assign("rootfs_sha256", r.image.rootfs_sha256);
  else if (const toml::node* n = image.get("mirror")) out.inputs.insert_or_assign("mirror", *n);
  out.inputs.insert_or_assign("packages", strings(sorted_unique(r.image.packages)));
  // Which of the excludes or includes matched first never matters (includes win), so their
  // order does not either.
  if (!r.image.path_exclude.empty()) {
    out.inputs.insert_or_assign("path_exclude", strings(sorted_unique(r.image.path_exclude)));
    out.inputs.insert_or_assign("path_include", strings(sorted_unique(r.image.path_include)));
  }
  bool host = !tarball && r.image.mirror == "host";
  if (host) out.inputs.insert_or_assign("host_apt_sources_sha256", or_missing(d.host_apt_sources));
  out.inputs.insert_or_assign("source_date_epoch", s.source_date_epoch);
  std::string arch = image["arch"].value_or(std::string("?"));
  std::string from = tarball ? "the root filesystem " +
                                   r.image.rootfs_url.substr(r.image.rootfs_url.find_last_of('/') + 1) + " (" +
                                   r.image.rootfs_sha256.substr(0, 8) + ")"
                     : host ? "the host's apt sources (" + short_digest(d.host_apt_sources) + ")"
                            : r.image.mirror;
  out.summary = to_string(r.image.distro) + " " + r.image.suite + " " + arch + " from " + from + "; " + r.image.kernel +
                " + " + std::to_string(sorted_unique(r.image.packages).size()) + " packages";
  if (!r.image.path_exclude.empty())
    out.summary += ", dpkg leaving out " + join(sorted_unique(r.image.path_exclude), " ") +
                   (r.image.path_include.empty() ? "" : " but " + join(sorted_unique(r.image.path_include), " "));
  return out;
}

Defined define_drivers(const LoadedRecipe& lr, const ContentDigests& d) {
  Defined out;
  toml::array bundles;
  std::vector<std::string> names;
  for (const auto& lm : lr.drivers) {
    const DriverManifest& m = lm.manifest;
    toml::table t = driver_manifest_schema().render(m);
    t.erase("description");  // words for people; rebuilding drivers for a reworded line helps no one
    if (!m.apt.key_file.empty()) t.insert_or_assign("key_file_sha256", or_missing(lookup(d.driver_keys, m.name)));
    if (m.kind == DriverKind::source)
      t.insert_or_assign("source_tree_sha256", or_missing(lookup(d.driver_sources, m.name)));
    bundles.push_back(std::move(t));
    std::string missing_key = !m.apt.key_file.empty() && lookup(d.driver_keys, m.name).empty() ? " (key MISSING)" : "";
    if (m.kind == DriverKind::source)
      missing_key += lookup(d.driver_sources, m.name).empty()
                         ? " (source MISSING)"
                         : " (source " + short_digest(lookup(d.driver_sources, m.name)) + ")";
    names.push_back(m.name + " " + m.version + missing_key);
  }
  out.inputs.insert_or_assign("bundle", std::move(bundles));
  out.inputs.insert_or_assign("keep_build_tools", lr.recipe.image.keep_build_tools);
  out.summary = names.empty() ? "no driver bundles" : join(names, ", ");
  if (lr.recipe.image.keep_build_tools) out.summary += ", build tools kept";
  return out;
}

Defined define_overlays(const Recipe& r, const ContentDigests& d) {
  Defined out;
  toml::array list;
  std::vector<std::string> names;
  for (const auto& name : r.image.overlays) {  // in order: later overlays win on conflicts
    std::string digest = lookup(d.overlays, name);
    list.push_back(toml::table{{"name", name}, {"tree_sha256", or_missing(digest)}});
    names.push_back(name + "@" + short_digest(digest));
  }
  out.inputs.insert_or_assign("overlay", std::move(list));
  out.summary = names.empty() ? "no overlays" : join(names, ", ");
  return out;
}

Defined define_agent(const Recipe& r, const ContentDigests& d, Hasher& hasher) {
  // The resolved recipe is installed as /etc/railyard/recipe.toml, so every key counts here.
  std::string recipe_digest = hasher.sha256_hex(render_recipe_toml(r));
  Defined out;
  out.inputs.insert_or_assign("railyard_version", std::string(kVersion));
  out.inputs.insert_or_assign("agent_sha256", or_missing(d.agent));
  out.inputs.insert_or_assign("recipe_sha256", recipe_digest);
  out.summary = std::string("railyard-firstboot ") + kVersion + " (" +
                (d.agent.empty() ? "NOT FOUND" : short_digest(d.agent)) + "), recipe " + r.name + " (" +
                short_digest(recipe_digest) + ")";
  return out;
}

Defined define_hygiene() {
  Defined out;
  toml::array rules;
  for (const auto& rule : hygiene_rules()) {
    toml::table t{{"pattern", rule.pattern}, {"action", to_string(rule.action)}};
    if (!rule.masks.empty()) t.insert_or_assign("masks", rule.masks);
    if (!rule.unless.empty()) t.insert_or_assign("unless", rule.unless);
    rules.push_back(std::move(t));
  }
  out.inputs.insert_or_assign("rules_version", kHygieneRulesVersion);
  out.inputs.insert_or_assign("rule", std::move(rules));
  out.summary = std::to_string(hygiene_rules().size()) + " identity and cache rules (v" +
                std::to_string(kHygieneRulesVersion) + ")";
  return out;
}

Defined define_trim(const Recipe& r) {
  Defined out;
  auto dropped = sorted_unique(r.image.drop_modules);
  out.inputs.insert_or_assign("drop_modules", strings(dropped));
  out.summary = dropped.empty() ? "all kernel modules kept" : "drop " + join(dropped, ", ");
  return out;
}

Defined define_pack(const Recipe& r, const BuildSettings& s) {
  Defined out;
  out.inputs.insert_or_assign("name", r.name);
  out.inputs.insert_or_assign("initramfs", "cpio newc");
  out.inputs.insert_or_assign("compression", "zstd");
  out.inputs.insert_or_assign("zstd_level", s.zstd_level);
  out.inputs.insert_or_assign("cmdline", strings(r.image.cmdline));  // order matters to the kernel
  out.summary = "vmlinuz, cpio newc + zstd -" + std::to_string(s.zstd_level) + ", boot.ipxe (" +
                std::to_string(r.image.cmdline.size()) + " cmdline args), manifest.json";
  return out;
}

std::string canonical(toml::table t, Stage stage) {
  t.insert_or_assign("stage_version", kStageVersion[static_cast<std::size_t>(stage)]);
  std::ostringstream out;
  out << toml::toml_formatter(t) << "\n";
  return out.str();
}

}  // namespace

std::string to_string(Stage s) {
  switch (s) {
    case Stage::base: return "base";
    case Stage::drivers: return "drivers";
    case Stage::overlays: return "overlays";
    case Stage::agent: return "agent";
    case Stage::hygiene: return "hygiene";
    case Stage::trim: return "trim";
    case Stage::pack: return "pack";
  }
  return "?";
}

std::optional<Stage> parse_stage(const std::string& name) {
  for (Stage s : kStages)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

BuildPlan plan_build(const LoadedRecipe& lr, const ContentDigests& digests, const BuildSettings& settings,
                     Hasher& hasher) {
  const Recipe& r = lr.recipe;
  BuildPlan plan{r.name, settings, {}};
  std::string previous = "none";
  for (Stage stage : kStages) {
    Defined d;
    switch (stage) {
      case Stage::base: d = define_base(r, digests, settings); break;
      case Stage::drivers: d = define_drivers(lr, digests); break;
      case Stage::overlays: d = define_overlays(r, digests); break;
      case Stage::agent: d = define_agent(r, digests, hasher); break;
      case Stage::hygiene: d = define_hygiene(); break;
      case Stage::trim: d = define_trim(r); break;
      case Stage::pack: d = define_pack(r, settings); break;
    }
    StagePlan sp{stage, canonical(std::move(d.inputs), stage), std::move(d.summary), ""};
    // Name and previous key are single lines, so the framing cannot be confused with inputs.
    sp.key = hasher.sha256_hex("railyard stage " + to_string(stage) + "\nprevious " + previous + "\n" + sp.inputs);
    previous = sp.key;
    plan.stages.push_back(std::move(sp));
  }
  return plan;
}

std::string to_string(StageAction a) {
  switch (a) {
    case StageAction::reuse: return "reuse";
    case StageAction::build: return "build";
    case StageAction::skip: return "-";
  }
  return "?";
}

bool stage_is_stored(Stage s) { return s == Stage::base || s == Stage::drivers || s == Stage::pack; }

bool stage_worth_storing(Stage s, double seconds) {
  if (!stage_is_stored(s)) return false;
  return s != Stage::drivers || seconds >= kDriversStoredAfterSeconds;
}

std::vector<StageAction> decide_actions(const std::vector<bool>& cached) {
  std::vector<StageAction> out(cached.size(), StageAction::build);
  auto last_hit = std::find(cached.rbegin(), cached.rend(), true);
  if (last_hit == cached.rend()) return out;
  std::size_t hit = static_cast<std::size_t>(cached.rend() - last_hit) - 1;
  for (std::size_t i = 0; i < hit; ++i) out[i] = StageAction::skip;
  out[hit] = StageAction::reuse;
  return out;
}

}  // namespace railyard
