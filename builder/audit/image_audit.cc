#include "image_audit.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <sys/stat.h>

#include "image/image_manifest.h"
#include "image/openssl_hasher.h"
#include "join_gates.h"
#include "recipe_loader.h"
#include "rootfs_file.h"
#include "rootfs_rules.h"
#include "text.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kAccountsLimit = 1 << 20;  // /etc/passwd larger than this is no passwd
constexpr std::size_t kDropinLimit = 64 << 10;   // a unit drop-in larger than this is read as empty
constexpr std::size_t kRecipeLimit = 1 << 20;

// What the audit keeps of the root filesystem beyond the rules' entries.
struct RootfsRead {
  std::vector<std::string> lab_modules;
  UnitTree units;
  std::optional<std::string> recipe;  // /etc/railyard/recipe.toml, the last part's
};

// The current entry's data, when it is a regular file no larger than `limit`.
std::optional<std::string> entry_text(archive* a, const RootfsEntry& e, std::size_t limit) {
  if (e.type != RootfsEntry::Type::file || e.size > limit) return std::nullopt;
  std::string text(e.size, '\0');
  la_ssize_t n = archive_read_data(a, text.data(), text.size());
  if (n < 0) return std::nullopt;
  text.resize(static_cast<std::size_t>(n));
  return text;
}

void audit_artifacts(const std::string& dir, const ImageManifest& m, AuditResult& r) {
  OpenSslHasher hasher;
  for (const auto& a : m.artifacts) {
    std::string file = dir + "/" + a.path;
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
      r.findings.push_back({a.path, "", "missing", "listed in manifest.json"});
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      r.findings.push_back({a.path, "", "not a regular file", "manifest.json lists it as an artifact"});
      continue;
    }
    if (static_cast<std::uint64_t>(st.st_size) != a.size) {
      r.findings.push_back(
          {a.path, "", "size " + std::to_string(st.st_size) + " bytes, manifest.json says " + std::to_string(a.size),
           "truncated or replaced after the build"});
      continue;
    }
    auto sha = hasher.sha256_file(file);
    if (!sha.ok()) r.findings.push_back({a.path, "", "cannot be read: " + sha.error(), ""});
    else if (*sha != a.sha256)
      r.findings.push_back(
          {a.path, "", "sha256 " + *sha + ", manifest.json says " + a.sha256, "changed after the build"});
  }
  // Whatever else lies in the directory is vouched for by nothing.
  std::set<std::string> listed{kManifestFile};
  for (const auto& a : m.artifacts) listed.insert(a.path);
  std::error_code ec;
  std::vector<std::string> extra;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory()) continue;
    std::string rel = fs::relative(it->path(), dir).generic_string();
    if (!listed.count(rel)) extra.push_back(rel);
  }
  if (ec) r.findings.push_back({"", "", "cannot be listed: " + ec.message(), ""});
  std::sort(extra.begin(), extra.end());
  for (const auto& e : extra)
    r.findings.push_back(
        {e, "", "not listed in manifest.json", "no digest vouches for it; left over from another build?"});
}

using Archive = std::unique_ptr<archive, decltype(&archive_read_free)>;

RootfsEntry::Type entry_type(mode_t mode) {
  if (S_ISREG(mode)) return RootfsEntry::Type::file;
  if (S_ISDIR(mode)) return RootfsEntry::Type::directory;
  if (S_ISLNK(mode)) return RootfsEntry::Type::symlink;
  return RootfsEntry::Type::other;
}

// One part of the root filesystem, entry by entry. Problems with the archive itself are
// findings against the part.
void audit_part(const std::string& dir, const std::string& part, RootfsRules& rules, AuditResult& r,
                RootfsRead& read_in) {
  Archive a(archive_read_new(), &archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_cpio(a.get());
  std::string file = dir + "/" + part;
  archive_entry* ae = nullptr;
  bool checked_format = false;
  std::size_t read = 0;
  int rc = archive_read_open_filename(a.get(), file.c_str(), 1 << 16);
  for (;;) {
    if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN) rc = archive_read_next_header(a.get(), &ae);
    if (rc == ARCHIVE_EOF) {
      if (read == 0)
        r.findings.push_back({part, "", "holds no entries", "a part of the root filesystem cannot be empty"});
      break;
    }
    if (rc < ARCHIVE_WARN) {
      r.findings.push_back(
          {part, "",
           std::string("unreadable after ") + std::to_string(read) + " entries: " + archive_error_string(a.get()),
           "the kernel would stop unpacking there"});
      return;
    }
    if (!checked_format) {
      checked_format = true;
      bool zstd = archive_filter_code(a.get(), 0) == ARCHIVE_FILTER_ZSTD;
      bool newc = archive_format(a.get()) == ARCHIVE_FORMAT_CPIO_SVR4_NOCRC;
      if (!zstd || !newc)
        r.findings.push_back(
            {part, "",
             std::string("is ") + archive_format_name(a.get()) + " compressed with " + archive_filter_name(a.get(), 0),
             "images are zstd-compressed newc cpio, the initramfs format the kernel unpacks"});
    }
    std::string name = normalize_path(std::string("/") + archive_entry_pathname(ae));
    ++read;
    if (name == "/") continue;
    RootfsEntry e{name,
                  entry_type(archive_entry_filetype(ae)),
                  static_cast<unsigned>(archive_entry_perm(ae)),
                  static_cast<long>(archive_entry_uid(ae)),
                  static_cast<long>(archive_entry_gid(ae)),
                  static_cast<std::uint64_t>(archive_entry_size(ae))};
    if (const char* target = archive_entry_symlink(ae)) e.link = target;
    rules.add(part, e);
    if (fs::path(name).filename().string().starts_with(kLabQosModule)) read_in.lab_modules.push_back(name);
    if (name == "/etc/passwd" || name == "/etc/group") {
      if (auto text = entry_text(a.get(), e, kAccountsLimit)) {
        if (name == "/etc/passwd") rules.set_passwd(*text);
        else rules.set_group(*text);
      }
    } else if (name == kImageRecipe) {
      read_in.recipe = entry_text(a.get(), e, kRecipeLimit);
    } else if (UnitTree::in_unit_dir(name)) {
      read_in.units.files[name] = part;
      read_in.units.dropins.erase(name);
      if (UnitTree::is_dropin(name)) {
        auto text = entry_text(a.get(), e, kDropinLimit);
        if (text) read_in.units.dropins[name] = *text;
      }
    }
  }
}

}  // namespace

Outcome<AuditResult> audit_image(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Outcome<AuditResult>::fail(dir + ": not a directory (give the image directory `railyard build` wrote)");
  auto m = read_image_manifest(path_join(dir, kManifestFile));
  if (!m.ok()) return Outcome<AuditResult>::fail(m.error());
  AuditResult r;
  r.artifacts = m->artifacts.size();
  audit_artifacts(dir, *m, r);
  RootfsRules rules;
  RootfsRead read_in;
  for (const auto& part : m->boot_initrds) {
    struct stat st {};
    if (::stat((dir + "/" + part).c_str(), &st) == 0 && S_ISREG(st.st_mode)) audit_part(dir, part, rules, r, read_in);
  }
  auto rootfs = rules.findings();
  r.findings.insert(r.findings.end(), rootfs.begin(), rootfs.end());
  const std::vector<std::string>& lab_modules = read_in.lab_modules;
  // The join gate of every unit the image's recipe joins with.
  if (read_in.recipe && !m->boot_initrds.empty()) {
    std::string label = path_join(dir, m->boot_initrds.front()) + ":" + kImageRecipe;
    auto recipe = parse_image_recipe(label, *read_in.recipe);
    if (!recipe.ok())
      r.findings.push_back({m->boot_initrds.front(), kImageRecipe, "is no recipe railyard reads: " + recipe.error(),
                            "the agent would refuse to run"});
    else {
      r.join_units = recipe->join.units;
      auto gates = audit_join_gates(recipe->join.units, read_in.units, m->boot_initrds.front());
      r.findings.insert(r.findings.end(), gates.begin(), gates.end());
    }
  }
  for (const auto& d : m->drivers)
    if (!d.emulates.empty()) r.lab_stand_ins.push_back({d.name, d.version, d.emulates, lab_modules});
  if (r.lab_stand_ins.empty())
    for (const auto& f : lab_modules)
      r.findings.push_back({m->boot_initrds.front(), f,
                            "the lab's DCB stand-in module, which no driver bundle of "
                            "manifest.json declares",
                            "it emulates DCB in software on virtio NICs; a production image must not carry it"});
  r.entries = rules.entries();
  return r;
}

}  // namespace railyard
