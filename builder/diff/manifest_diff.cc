#include "manifest_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "debian_version.h"
#include "text.h"

namespace railyard {

std::string to_string(ChangeKind k) {
  switch (k) {
    case ChangeKind::added: return "added";
    case ChangeKind::removed: return "removed";
    case ChangeKind::upgraded: return "upgraded";
    case ChangeKind::downgraded: return "downgraded";
    case ChangeKind::changed: return "changed";
  }
  return "?";
}

std::string driver_family(const std::string& name, const std::string& version) {
  std::string suffix = "-" + version;
  if (!version.empty() && name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    return name.substr(0, name.size() - suffix.size());
  return name;
}

bool ManifestDiff::empty() const {
  return fields.empty() && cmdline.empty() && packages.empty() && drivers.empty() && dkms.empty() &&
         trim_dropped.empty() && !trim_files && !trim_bytes && stages.empty() && inputs.empty() && artifacts.empty();
}

namespace {

ListChange list_change(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  ListChange c;
  std::set_difference(sb.begin(), sb.end(), sa.begin(), sa.end(), std::back_inserter(c.added));
  std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(c.removed));
  return c;
}

void field(std::vector<FieldChange>& out, const std::string& key, const std::string& a, const std::string& b) {
  if (a != b) out.push_back({key, a, b});
}

// Added, removed, or compared by version; `name` and `detail` filled by the caller.
std::optional<VersionChange> version_change(const std::string* a, const std::string* b) {
  if (!a) return VersionChange{"", ChangeKind::added, "", *b, ""};
  if (!b) return VersionChange{"", ChangeKind::removed, *a, "", ""};
  int c = compare_debian_versions(*a, *b);
  if (c < 0) return VersionChange{"", ChangeKind::upgraded, *a, *b, ""};
  if (c > 0) return VersionChange{"", ChangeKind::downgraded, *a, *b, ""};
  if (*a != *b) return VersionChange{"", ChangeKind::changed, *a, *b, ""};  // equal to dpkg, not byte for byte
  return std::nullopt;
}

// Every key of either map, in order, with what each side holds.
template <class T, class F>
void pair_up(const std::map<std::string, T>& a, const std::map<std::string, T>& b, F&& f) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    auto ia = a.find(k), ib = b.find(k);
    f(k, ia == a.end() ? nullptr : &ia->second, ib == b.end() ? nullptr : &ib->second);
  }
}

// Packages are keyed by name, plus the architecture for foreign ones (libc6:i386).
std::map<std::string, std::string> package_versions(const ImageManifest& m) {
  std::map<std::string, std::string> out;
  for (const auto& p : m.packages) {
    bool native = p.arch.empty() || p.arch == "all" || p.arch == m.arch;
    out[native ? p.name : p.name + ":" + p.arch] = p.version;
  }
  // A bundle's DKMS source packages, gone with the build tools once their modules were built:
  // what the modules came from.
  for (const auto& nv : m.build_tools_sources_removed)
    if (auto sp = nv.find(' '); sp != std::string::npos)
      out[nv.substr(0, sp) + " (DKMS source, removed)"] = nv.substr(sp + 1);
  return out;
}

std::map<std::string, const ManifestDriver*> drivers_by_family(const ImageManifest& m) {
  std::map<std::string, const ManifestDriver*> out;
  for (const auto& d : m.drivers) out[driver_family(d.name, d.version)] = &d;
  return out;
}

std::map<std::string, const ManifestDkms*> dkms_by_module(const ImageManifest& m) {
  std::map<std::string, const ManifestDkms*> out;
  for (const auto& d : m.drivers)
    for (const auto& k : d.dkms) out[k.module] = &k;
  return out;
}

void diff_drivers(const ImageManifest& a, const ImageManifest& b, ManifestDiff& d) {
  pair_up(drivers_by_family(a), drivers_by_family(b),
          [&](const std::string& family, const ManifestDriver* const* x, const ManifestDriver* const* y) {
            const ManifestDriver* da = x ? *x : nullptr;
            const ManifestDriver* db = y ? *y : nullptr;
            DriverChange c;
            auto v = version_change(da ? &da->version : nullptr, db ? &db->version : nullptr);
            if (da && db) {
              c.packages = list_change(da->packages, db->packages);
              c.modules = list_change(da->modules, db->modules);
              if (da->name != db->name) c.version.detail = da->name + " → " + db->name;
            }
            if (!v && c.packages.empty() && c.modules.empty() && c.version.detail.empty()) return;
            if (v) c.version = VersionChange{family, v->kind, v->old_version, v->new_version, c.version.detail};
            else c.version = VersionChange{family, ChangeKind::changed, da->version, db->version, c.version.detail};
            d.drivers.push_back(std::move(c));
          });
  pair_up(dkms_by_module(a), dkms_by_module(b),
          [&](const std::string& module, const ManifestDkms* const* x, const ManifestDkms* const* y) {
            const ManifestDkms* ka = x ? *x : nullptr;
            const ManifestDkms* kb = y ? *y : nullptr;
            auto v = version_change(ka ? &ka->version : nullptr, kb ? &kb->version : nullptr);
            bool kernel_moved = ka && kb && ka->kernel != kb->kernel;
            bool files_moved = ka && kb && ka->files != kb->files;
            if (!v && !kernel_moved && !files_moved) return;
            VersionChange c = v ? *v : VersionChange{"", ChangeKind::changed, ka->version, kb->version, ""};
            c.name = module;
            if (kernel_moved) c.detail = "kernel " + ka->kernel + " → " + kb->kernel;
            else if (files_moved) c.detail = "module files changed";
            else c.detail = "kernel " + (kb ? kb->kernel : ka->kernel);
            d.dkms.push_back(std::move(c));
          });
}

void diff_artifacts(const ImageManifest& a, const ImageManifest& b, ManifestDiff& d) {
  std::map<std::string, ManifestArtifact> ma, mb;
  for (const auto& x : a.artifacts) ma[x.path] = x;
  for (const auto& x : b.artifacts) mb[x.path] = x;
  pair_up(ma, mb, [&](const std::string& path, const ManifestArtifact* x, const ManifestArtifact* y) {
    if (x && y && x->sha256 == y->sha256 && x->size == y->size) return;
    ArtifactChange c{path, !x ? ChangeKind::added : !y ? ChangeKind::removed : ChangeKind::changed, {}, {}};
    if (x) c.old_artifact = *x;
    if (y) c.new_artifact = *y;
    d.artifacts.push_back(std::move(c));
  });
}

}  // namespace

ManifestDiff diff_manifests(const ImageManifest& a, const ImageManifest& b) {
  ManifestDiff d;
  field(d.fields, "recipe.name", a.recipe_name, b.recipe_name);
  field(d.fields, "recipe.sha256", a.recipe_sha256, b.recipe_sha256);
  field(d.fields, "railyard_version", a.railyard_version, b.railyard_version);
  field(d.fields, "source_date_epoch", std::to_string(a.source_date_epoch), std::to_string(b.source_date_epoch));
  field(d.fields, "image.distro", a.distro, b.distro);
  field(d.fields, "image.suite", a.suite, b.suite);
  field(d.fields, "image.arch", a.arch, b.arch);
  field(d.fields, "kernel.version", a.kernel_version, b.kernel_version);
  field(d.fields, "kernel.package", a.kernel_package, b.kernel_package);
  field(d.fields, "kernel.package_version", a.kernel_package_version, b.kernel_package_version);
  field(d.fields, "boot.kernel", a.boot_kernel, b.boot_kernel);
  field(d.fields, "boot.initrds", join(a.boot_initrds, " "), join(b.boot_initrds, " "));
  d.cmdline = list_change(a.cmdline, b.cmdline);
  if (d.cmdline.empty() && a.cmdline != b.cmdline)
    field(d.fields, "kernel.cmdline order", join(a.cmdline, " "), join(b.cmdline, " "));

  pair_up(package_versions(a), package_versions(b),
          [&](const std::string& name, const std::string* x, const std::string* y) {
            if (auto v = version_change(x, y)) {
              v->name = name;
              d.packages.push_back(*v);
            }
          });
  diff_drivers(a, b, d);

  d.trim_dropped = list_change(a.trim_dropped, b.trim_dropped);
  if (a.trim_files != b.trim_files)
    d.trim_files = FieldChange{"trim.files", std::to_string(a.trim_files), std::to_string(b.trim_files)};
  if (a.trim_bytes != b.trim_bytes)
    d.trim_bytes = FieldChange{"trim.bytes", std::to_string(a.trim_bytes), std::to_string(b.trim_bytes)};

  std::map<std::string, std::string> sa, sb, ia, ib;
  for (const auto& s : a.stages) sa[s.name] = s.key;
  for (const auto& s : b.stages) sb[s.name] = s.key;
  for (const auto& i : a.inputs) ia[i.kind + " " + i.name] = i.sha256;
  for (const auto& i : b.inputs) ib[i.kind + " " + i.name] = i.sha256;
  auto keyed = [](std::vector<FieldChange>& out) {
    return [&out](const std::string& k, const std::string* x, const std::string* y) {
      if (!x || !y || *x != *y) out.push_back({k, x ? *x : "", y ? *y : ""});
    };
  };
  // Stages in build order rather than by name.
  std::vector<FieldChange> stages;
  pair_up(sa, sb, keyed(stages));
  for (const auto& s : b.stages)
    for (const auto& c : stages)
      if (c.key == s.name) d.stages.push_back(c);
  for (const auto& c : stages)
    if (!sb.count(c.key)) d.stages.push_back(c);
  pair_up(ia, ib, keyed(d.inputs));
  diff_artifacts(a, b, d);
  return d;
}

namespace {

std::string short_digest(const std::string& s) { return s.size() > 12 ? s.substr(0, 12) : s; }

std::string signed_delta(std::uint64_t a, std::uint64_t b) {
  return b >= a ? "+" + std::to_string(b - a) : "-" + std::to_string(a - b);
}

std::string version_line(const VersionChange& v) {
  std::string line = "  " + to_string(v.kind);
  line.resize(14, ' ');
  line += v.name + " ";
  if (v.kind == ChangeKind::added) line += v.new_version;
  else if (v.kind == ChangeKind::removed) line += v.old_version;
  else if (v.old_version == v.new_version) line += v.new_version;
  else line += v.old_version + " → " + v.new_version;
  if (!v.detail.empty()) line += " (" + v.detail + ")";
  return line + "\n";
}

std::string list_text(const ListChange& c) {
  std::vector<std::string> parts;
  for (const auto& x : c.added) parts.push_back("+" + x);
  for (const auto& x : c.removed) parts.push_back("-" + x);
  return join(parts, " ");
}

std::string tally(const std::vector<VersionChange>& changes) {
  std::vector<std::string> out;
  for (auto k :
       {ChangeKind::upgraded, ChangeKind::downgraded, ChangeKind::changed, ChangeKind::added, ChangeKind::removed}) {
    auto n = std::count_if(changes.begin(), changes.end(), [&](const VersionChange& v) { return v.kind == k; });
    if (n) out.push_back(std::to_string(n) + " " + to_string(k));
  }
  return join(out, ", ");
}

}  // namespace

std::string render_diff_text(const ManifestDiff& d) {
  if (d.empty()) return "no differences\n";
  std::ostringstream o;
  for (const auto& f : d.fields) {
    bool digest = f.key.find("sha256") != std::string::npos;
    o << f.key << ": " << (digest ? short_digest(f.old_value) : f.old_value) << " → "
      << (digest ? short_digest(f.new_value) : f.new_value) << "\n";
  }
  if (!d.cmdline.empty()) o << "kernel.cmdline: " << list_text(d.cmdline) << "\n";
  if (!d.packages.empty()) {
    o << "packages: " << tally(d.packages) << "\n";
    for (const auto& p : d.packages) o << version_line(p);
  }
  if (!d.drivers.empty()) {
    o << "drivers:\n";
    for (const auto& c : d.drivers) {
      o << version_line(c.version);
      if (!c.packages.empty()) o << "                packages " << list_text(c.packages) << "\n";
      if (!c.modules.empty()) o << "                modules " << list_text(c.modules) << "\n";
    }
  }
  if (!d.dkms.empty()) {
    o << "dkms:\n";
    for (const auto& k : d.dkms) o << version_line(k);
  }
  if (!d.trim_dropped.empty()) o << "trim.dropped: " << list_text(d.trim_dropped) << "\n";
  for (const auto* f : {&d.trim_files, &d.trim_bytes})
    if (*f) o << (*f)->key << ": " << (*f)->old_value << " → " << (*f)->new_value << "\n";
  if (!d.artifacts.empty()) {
    o << "artifacts:\n";
    for (const auto& a : d.artifacts) {
      std::string line = "  " + to_string(a.kind);
      line.resize(14, ' ');
      o << line << a.path << " ";
      if (a.kind == ChangeKind::added) o << a.new_artifact->size << " bytes";
      else if (a.kind == ChangeKind::removed) o << a.old_artifact->size << " bytes";
      else {
        o << a.old_artifact->size << " → " << a.new_artifact->size << " bytes ("
          << signed_delta(a.old_artifact->size, a.new_artifact->size) << ")";
        if (a.old_artifact->sha256 != a.new_artifact->sha256)
          o << ", sha256 " << short_digest(a.old_artifact->sha256) << " → " << short_digest(a.new_artifact->sha256);
      }
      o << "\n";
    }
  }
  auto digests = [&](const char* title, const std::vector<FieldChange>& changes) {
    if (changes.empty()) return;
    o << title << ":\n";
    for (const auto& c : changes)
      o << "  " << c.key << " " << (c.old_value.empty() ? "(none)" : short_digest(c.old_value)) << " → "
        << (c.new_value.empty() ? "(none)" : short_digest(c.new_value)) << "\n";
  };
  digests("stage keys", d.stages);
  digests("inputs", d.inputs);
  return o.str();
}

namespace {

using nlohmann::ordered_json;

ordered_json version_json(const VersionChange& v) {
  ordered_json j{{"name", v.name}, {"change", to_string(v.kind)}};
  j["old"] = v.old_version.empty() ? ordered_json(nullptr) : ordered_json(v.old_version);
  j["new"] = v.new_version.empty() ? ordered_json(nullptr) : ordered_json(v.new_version);
  if (!v.detail.empty()) j["detail"] = v.detail;
  return j;
}

ordered_json list_json(const ListChange& c) { return {{"added", c.added}, {"removed", c.removed}}; }

ordered_json fields_json(const std::vector<FieldChange>& changes) {
  ordered_json arr = ordered_json::array();
  for (const auto& f : changes) {
    ordered_json j{{"key", f.key}};
    j["old"] = f.old_value.empty() ? ordered_json(nullptr) : ordered_json(f.old_value);
    j["new"] = f.new_value.empty() ? ordered_json(nullptr) : ordered_json(f.new_value);
    arr.push_back(j);
  }
  return arr;
}

ordered_json artifact_json(const std::optional<ManifestArtifact>& a) {
  if (!a) return nullptr;
  return {{"sha256", a->sha256}, {"size", a->size}};
}

}  // namespace

std::string render_diff_json(const ManifestDiff& d, const std::string& old_path, const std::string& new_path) {
  ordered_json j;
  j["old"] = old_path;
  j["new"] = new_path;
  j["differences"] = !d.empty();
  j["fields"] = fields_json(d.fields);
  j["cmdline"] = list_json(d.cmdline);
  j["packages"] = ordered_json::array();
  for (const auto& p : d.packages) j["packages"].push_back(version_json(p));
  j["drivers"] = ordered_json::array();
  for (const auto& c : d.drivers) {
    ordered_json x = version_json(c.version);
    x["packages"] = list_json(c.packages);
    x["modules"] = list_json(c.modules);
    j["drivers"].push_back(x);
  }
  j["dkms"] = ordered_json::array();
  for (const auto& k : d.dkms) j["dkms"].push_back(version_json(k));
  ordered_json trim{{"dropped", list_json(d.trim_dropped)}};
  for (const auto* f : {&d.trim_files, &d.trim_bytes})
    if (*f) trim[(*f)->key.substr(5)] = {{"old", std::stoull((*f)->old_value)}, {"new", std::stoull((*f)->new_value)}};
  j["trim"] = trim;
  j["artifacts"] = ordered_json::array();
  for (const auto& a : d.artifacts) {
    ordered_json x{{"path", a.path},
                   {"change", to_string(a.kind)},
                   {"old", artifact_json(a.old_artifact)},
                   {"new", artifact_json(a.new_artifact)}};
    if (a.old_artifact && a.new_artifact)
      x["size_delta"] =
          static_cast<std::int64_t>(a.new_artifact->size) - static_cast<std::int64_t>(a.old_artifact->size);
    j["artifacts"].push_back(x);
  }
  j["stages"] = fields_json(d.stages);
  j["inputs"] = fields_json(d.inputs);
  return j.dump(2) + "\n";
}

}  // namespace railyard
