#include "checks/image_modules.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include "text.h"

namespace railyard {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The kernel's name of a module file or DKMS entry: no suffix, '-' as '_'.
std::string module_name(std::string s) {
  s = s.substr(s.rfind('/') + 1);
  for (const char* suffix : {".ko.zst", ".ko.xz", ".ko.gz", ".ko"})
    if (s.ends_with(suffix)) {
      s.resize(s.size() - std::string(suffix).size());
      break;
    }
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// A module name as it may reach a path: letters, digits and '_' only.
bool plain(const std::string& s) {
  return !s.empty() && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

ordered_json sysfs_field(Files& files, const std::string& module, const char* field) {
  auto v = files.read_file("/sys/module/" + module + "/" + field);
  if (!v.ok()) return nullptr;
  return trim(*v);
}

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

ordered_json image_modules(Files& files, Modules& kernel_modules) {
  auto text = files.read_file(kImageDriversRecord);
  if (!text.ok()) {
    if (text.code() == ENOENT) return nullptr;
    return ordered_json::array({{{"error", text.error()}}});
  }
  json record = json::parse(*text, nullptr, false);
  if (record.is_discarded() || !record.is_array())
    return ordered_json::array(
        {{{"error", std::string(kImageDriversRecord) + ": not a drivers record (a JSON array)"}}});
  ordered_json out = ordered_json::array();
  std::vector<std::string> seen;
  for (const auto& bundle : record) {
    const std::string name = text_of(bundle, "name"), version = text_of(bundle, "version");
    // name → the DKMS module's version it was built as ("" for a module the bundle only names)
    std::vector<std::pair<std::string, std::string>> modules;
    auto add = [&](const std::string& m, const std::string& built) {
      if (!plain(m)) return;
      for (auto& [n, b] : modules)
        if (n == m) {
          if (b.empty()) b = built;
          return;
        }
      modules.emplace_back(m, built);
    };
    if (bundle.contains("modules") && bundle["modules"].is_array())
      for (const auto& m : bundle["modules"])
        if (m.is_string()) add(module_name(m.get<std::string>()), "");
    if (bundle.contains("dkms") && bundle["dkms"].is_array())
      for (const auto& k : bundle["dkms"])
        if (k.is_object() && k.contains("files") && k["files"].is_array())
          for (const auto& f : k["files"])
            if (f.is_string()) add(module_name(f.get<std::string>()), text_of(k, "version"));
    for (const auto& [m, built] : modules) {
      if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;  // named by an earlier bundle
      seen.push_back(m);
      const bool loaded = kernel_modules.module_loaded(m);
      out.push_back({{"name", m},
                     {"bundle", name},
                     {"bundle_version", version},
                     {"built", built.empty() ? ordered_json(nullptr) : ordered_json(built)},
                     {"loaded", loaded},
                     {"version", loaded ? sysfs_field(files, m, "version") : ordered_json(nullptr)},
                     {"srcversion", loaded ? sysfs_field(files, m, "srcversion") : ordered_json(nullptr)}});
    }
  }
  return out;
}

}  // namespace railyard
