#include "image/image_manifest.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/disk_source.h"
#include "net.h"
#include "recipe.h"
#include "text.h"

namespace railyard {

using nlohmann::json;
using nlohmann::ordered_json;

const ManifestArtifact* ImageManifest::artifact(std::string_view p) const {
  for (const auto& a : artifacts)
    if (a.path == p) return &a;
  return nullptr;
}

namespace {

// Thrown only inside this file, where a reader several levels down finds a bad value; the
// public functions turn it into an Outcome.
struct Bad {
  std::string key, what;
};

std::string describe(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction";
    default: return "something else";
  }
}

std::string sub(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

const json& member(const json& obj, const std::string& where, const std::string& key) {
  if (!obj.is_object()) throw Bad{where, "expected an object, found " + describe(obj)};
  auto it = obj.find(key);
  if (it == obj.end()) throw Bad{sub(where, key), "missing"};
  return *it;
}

// Every string of a manifest may reach a file (dnsmasq, iPXE), a path or a command line:
// none may hold a line break or another control character.
std::string text(const json& j, const std::string& key) {
  if (!j.is_string()) throw Bad{key, "expected a string, found " + describe(j)};
  std::string v = j.get<std::string>();
  if (std::string c = first_control(v); !c.empty())
    throw Bad{key, "'" + escape_control(v) + "' holds a control character (" + c + "); no manifest value may"};
  return v;
}

std::string text(const json& obj, const std::string& where, const std::string& key) {
  return text(member(obj, where, key), sub(where, key));
}

std::string digest(const json& obj, const std::string& where, const std::string& key) {
  std::string v = text(obj, where, key);
  if (auto why = check_hex(v, 64)) throw Bad{sub(where, key), "'" + v + "' is not a sha256 digest: " + *why};
  return v;
}

std::int64_t integer(const json& obj, const std::string& where, const std::string& key) {
  const json& j = member(obj, where, key);
  if (!j.is_number_integer()) throw Bad{sub(where, key), "expected an integer, found " + describe(j)};
  return j.get<std::int64_t>();
}

std::uint64_t count(const json& obj, const std::string& where, const std::string& key) {
  const json& j = member(obj, where, key);
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
    throw Bad{sub(where, key), "expected a non-negative integer, found " + describe(j)};
  return j.get<std::uint64_t>();
}

template <class F>
void each(const json& obj, const std::string& where, const std::string& key, F&& f) {
  const json& arr = member(obj, where, key);
  std::string name = sub(where, key);
  if (!arr.is_array()) throw Bad{name, "expected an array, found " + describe(arr)};
  for (std::size_t i = 0; i < arr.size(); ++i) f(arr[i], name + "[" + std::to_string(i) + "]");
}

std::vector<std::string> texts(const json& obj, const std::string& where, const std::string& key) {
  std::vector<std::string> out;
  each(obj, where, key, [&](const json& j, const std::string& at) { out.push_back(text(j, at)); });
  return out;
}

// Artifact paths name files inside the image directory, so every consumer may join them to
// it: relative, normalised, never escaping it.
std::string relative_path(const json& j, const std::string& key) {
  std::string p = text(j, key);
  if (p.empty() || p.front() == '/' || normalize_path(p) != p || p == ".." || p.rfind("../", 0) == 0)
    throw Bad{key, "'" + p + "' is not a normalised path relative to the image directory"};
  return p;
}

void read_drivers(const json& root, ImageManifest& m) {
  each(root, "", "drivers", [&](const json& d, const std::string& at) {
    ManifestDriver drv{text(d, at, "name"),
                       text(d, at, "version"),
                       text(d, at, "kind"),
                       texts(d, at, "packages"),
                       texts(d, at, "modules"),
                       {},
                       {}};
    if (d.is_object() && d.contains("emulates")) drv.emulates = texts(d, at, "emulates");
    each(d, at, "dkms", [&](const json& k, const std::string& kat) {
      drv.dkms.push_back(
          {text(k, kat, "module"), text(k, kat, "version"), text(k, kat, "kernel"), texts(k, kat, "files")});
    });
    m.drivers.push_back(std::move(drv));
  });
}

// A build that trims nothing records an empty object; each key is read when present.
void read_trim(const json& trim, ImageManifest& m) {
  if (!trim.is_object()) throw Bad{"trim", "expected an object, found " + describe(trim)};
  if (trim.contains("kernel")) m.trim_kernel = text(trim, "trim", "kernel");
  if (trim.contains("dropped")) m.trim_dropped = texts(trim, "trim", "dropped");
  if (trim.contains("files")) m.trim_files = count(trim, "trim", "files");
  if (trim.contains("bytes")) m.trim_bytes = count(trim, "trim", "bytes");
  if (trim.contains("dirs"))
    each(trim, "trim", "dirs", [&](const json& d, const std::string& at) {
      m.trim_dirs.push_back({text(d, at, "dir"), count(d, at, "files"), count(d, at, "bytes")});
    });
  if (trim.contains("stranded")) m.trim_stranded = texts(trim, "trim", "stranded");
}

void check_artifacts(const ImageManifest& m) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < m.artifacts.size(); ++i) {
    const auto& p = m.artifacts[i].path;
    std::string at = "artifacts[" + std::to_string(i) + "].path";
    if (p == kManifestFile) throw Bad{at, "manifest.json cannot list itself"};
    if (!seen.insert(p).second) throw Bad{at, "'" + p + "' is listed twice"};
  }
  if (!m.artifact(m.boot_kernel)) throw Bad{"boot.kernel", "'" + m.boot_kernel + "' is not among the artifacts"};
  if (m.boot_initrds.empty()) throw Bad{"boot.initrds", "empty: an initramfs image needs its root filesystem"};
  for (std::size_t i = 0; i < m.boot_initrds.size(); ++i)
    if (!m.artifact(m.boot_initrds[i]))
      throw Bad{"boot.initrds[" + std::to_string(i) + "]", "'" + m.boot_initrds[i] + "' is not among the artifacts"};
}

ImageManifest read(const json& root) {
  ImageManifest m;
  if (!root.is_object()) throw Bad{"", "expected a JSON object, found " + describe(root)};
  m.schema = static_cast<int>(integer(root, "", "schema"));
  if (m.schema != kImageManifestSchema)
    throw Bad{"schema", std::to_string(m.schema) + " is not supported (this railyard reads schema " +
                            std::to_string(kImageManifestSchema) + ")"};
  m.railyard_version = text(root, "", "railyard_version");
  m.recipe_name = text(member(root, "", "recipe"), "recipe", "name");
  if (auto why = check_name(m.recipe_name)) throw Bad{"recipe.name", *why};
  m.recipe_sha256 = digest(member(root, "", "recipe"), "recipe", "sha256");
  m.source_date_epoch = integer(root, "", "source_date_epoch");
  const json& image = member(root, "", "image");
  m.distro = text(image, "image", "distro");
  m.suite = text(image, "image", "suite");
  m.arch = text(image, "image", "arch");
  const json& kernel = member(root, "", "kernel");
  m.kernel_version = text(kernel, "kernel", "version");
  m.kernel_package = text(kernel, "kernel", "package");
  m.kernel_package_version = text(kernel, "kernel", "package_version");
  m.cmdline = texts(kernel, "kernel", "cmdline");
  const json& boot = member(root, "", "boot");
  m.boot_format = text(boot, "boot", "format");
  if (m.boot_format != "initramfs") throw Bad{"boot.format", "'" + m.boot_format + "' is not supported (initramfs)"};
  m.boot_kernel = relative_path(member(boot, "boot", "kernel"), "boot.kernel");
  each(boot, "boot", "initrds",
       [&](const json& j, const std::string& at) { m.boot_initrds.push_back(relative_path(j, at)); });
  each(root, "", "stages", [&](const json& s, const std::string& at) {
    m.stages.push_back({text(s, at, "name"), digest(s, at, "key")});
  });
  each(root, "", "inputs", [&](const json& s, const std::string& at) {
    // An input the build could not digest is recorded as such ("missing"), not left out.
    m.inputs.push_back({text(s, at, "kind"), text(s, at, "name"), text(s, at, "sha256")});
  });
  read_drivers(root, m);
  each(root, "", "packages", [&](const json& p, const std::string& at) {
    m.packages.push_back({text(p, at, "name"), text(p, at, "version"), text(p, at, "arch")});
  });
  read_trim(member(root, "", "trim"), m);
  if (root.contains("build_tools")) {  // images built before the tools were removed have none
    const json& t = member(root, "", "build_tools");
    m.build_tools_removed = texts(t, "build_tools", "removed");
    m.build_tools_kept = texts(t, "build_tools", "kept");
    m.build_tools_why_kept = text(t, "build_tools", "why_kept");
    if (t.contains("sources_removed")) m.build_tools_sources_removed = texts(t, "build_tools", "sources_removed");
  }
  each(root, "", "artifacts", [&](const json& a, const std::string& at) {
    m.artifacts.push_back(
        {relative_path(member(a, at, "path"), at + ".path"), digest(a, at, "sha256"), count(a, at, "size")});
  });
  check_artifacts(m);
  return m;
}

// nlohmann reports a byte offset; people and editors want a line and a column.
std::string line_col(std::string_view text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// Parses `text` and hands the root to `read`; any error names `path`, with a line and
// column for invalid JSON and the key for a value of the wrong shape.
template <class T, class F>
Outcome<T> parse_with(std::string_view text, const std::string& path, F&& read) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is one past the offending character. The message's "last read: '…'" echoes
    // the input with escapes; the line and column say the same more plainly.
    std::string what = e.what();
    auto start = what.find("syntax error");
    what = start != std::string::npos ? what.substr(start) : what;
    auto last = what.find("; last read: '");
    auto end = last != std::string::npos ? what.find("';", last + 14) : std::string::npos;
    if (end != std::string::npos) what.erase(last, end + 1 - last);
    return Outcome<T>::fail(path + ":" + line_col(text, e.byte ? e.byte - 1 : 0) + ": invalid JSON: " + what);
  }
  try {
    return read(root);
  } catch (const Bad& b) {
    return Outcome<T>::fail(path + ": " + (b.key.empty() ? "" : b.key + ": ") + b.what);
  }
}

ordered_json drivers_json(const std::vector<ManifestDriver>& drivers) {
  ordered_json out = ordered_json::array();
  for (const auto& d : drivers) {
    ordered_json dkms = ordered_json::array();
    for (const auto& k : d.dkms)
      dkms.push_back({{"module", k.module}, {"version", k.version}, {"kernel", k.kernel}, {"files", k.files}});
    out.push_back({{"name", d.name},
                   {"version", d.version},
                   {"kind", d.kind},
                   {"packages", d.packages},
                   {"modules", d.modules},
                   {"dkms", dkms},
                   {"emulates", d.emulates}});
  }
  return out;
}

ordered_json trim_json(const ImageManifest& m) {
  ordered_json dirs = ordered_json::array();
  for (const auto& d : m.trim_dirs) dirs.push_back({{"dir", d.dir}, {"files", d.files}, {"bytes", d.bytes}});
  return {{"kernel", m.trim_kernel},
          {"dropped", m.trim_dropped},
          {"files", m.trim_files},
          {"bytes", m.trim_bytes},
          {"dirs", dirs},
          {"stranded", m.trim_stranded}};
}

}  // namespace

Outcome<ImageManifest> parse_image_manifest(std::string_view text, const std::string& path) {
  return parse_with<ImageManifest>(text, path, [](const json& root) { return read(root); });
}

Outcome<std::vector<ManifestDriver>> parse_drivers_record(std::string_view text, const std::string& path) {
  return parse_with<std::vector<ManifestDriver>>(text, path, [](const json& record) {
    ImageManifest m;
    read_drivers(json{{"drivers", record}}, m);
    return m.drivers;
  });
}

Outcome<Done> parse_trim_record(std::string_view text, const std::string& path, ImageManifest& m) {
  return parse_with<Done>(text, path, [&m](const json& record) {
    read_trim(record, m);
    return Done{};
  });
}

std::string render_drivers_record(const std::vector<ManifestDriver>& drivers) {
  return drivers_json(drivers).dump(2) + "\n";
}

std::string render_trim_record(const ImageManifest& m) { return trim_json(m).dump(2) + "\n"; }

Outcome<ImageManifest> read_image_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    return Outcome<ImageManifest>::fail(path + ": cannot be read: " + DiskSource().why_unreadable(path) +
                                        " (is it an image directory's manifest.json?)");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Outcome<ImageManifest>::fail(path + ": read error");
  return parse_image_manifest(ss.str(), path);
}

std::string render_image_manifest(const ImageManifest& m) {
  ordered_json j;
  j["schema"] = m.schema;
  j["railyard_version"] = m.railyard_version;
  j["recipe"] = {{"name", m.recipe_name}, {"sha256", m.recipe_sha256}};
  j["source_date_epoch"] = m.source_date_epoch;
  j["image"] = {{"distro", m.distro}, {"suite", m.suite}, {"arch", m.arch}};
  j["kernel"] = {{"version", m.kernel_version},
                 {"package", m.kernel_package},
                 {"package_version", m.kernel_package_version},
                 {"cmdline", m.cmdline}};
  j["boot"] = {{"format", m.boot_format}, {"kernel", m.boot_kernel}, {"initrds", m.boot_initrds}};
  j["stages"] = ordered_json::array();
  for (const auto& s : m.stages) j["stages"].push_back({{"name", s.name}, {"key", s.key}});
  j["inputs"] = ordered_json::array();
  for (const auto& i : m.inputs) j["inputs"].push_back({{"kind", i.kind}, {"name", i.name}, {"sha256", i.sha256}});
  j["drivers"] = drivers_json(m.drivers);
  j["packages"] = ordered_json::array();
  for (const auto& p : m.packages)
    j["packages"].push_back({{"name", p.name}, {"version", p.version}, {"arch", p.arch}});
  j["trim"] = trim_json(m);
  j["build_tools"] = {{"removed", m.build_tools_removed},
                      {"kept", m.build_tools_kept},
                      {"why_kept", m.build_tools_why_kept},
                      {"sources_removed", m.build_tools_sources_removed}};
  j["artifacts"] = ordered_json::array();
  for (const auto& a : m.artifacts)
    j["artifacts"].push_back({{"path", a.path}, {"sha256", a.sha256}, {"size", a.size}});
  return j.dump(2) + "\n";
}

}  // namespace railyard
