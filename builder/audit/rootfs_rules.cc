#include "rootfs_rules.h"

#include <algorithm>
#include <cstdio>

#include "image_hygiene.h"
#include "text.h"

namespace railyard {

namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Not one of the hygiene stage's rules, but the same concern: the image every node of the
// SKU boots must not carry one node's identity.
const HygieneRule kNodeIdentity{"/etc/railyard/node.toml", HygieneRule::remove,
                                "a node's identity belongs in its own overlay, not in the image all nodes boot"};

std::string octal(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// The hygiene rules, then the audit's own.
const std::vector<const HygieneRule*>& audit_rules() {
  static const std::vector<const HygieneRule*> all = [] {
    std::vector<const HygieneRule*> v;
    for (const auto& r : hygiene_rules()) v.push_back(&r);
    v.push_back(&kNodeIdentity);
    return v;
  }();
  return all;
}

// The ids in the third field of passwd/group lines ("name:x:ID:...").
std::set<long> account_ids(const std::string& text) {
  std::set<long> ids{0};
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    auto a = line.find(':'), b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    auto c = line.find(':', b + 1);
    std::string_view id = line.substr(b + 1, c == std::string_view::npos ? std::string_view::npos : c - b - 1);
    if (id.empty() || id.size() > 10 || id.find_first_not_of("0123456789") != std::string_view::npos) continue;
    ids.insert(std::stol(std::string(id)));
  }
  return ids;
}

}  // namespace

bool hygiene_pattern_matches(std::string_view pattern, std::string_view path) {
  auto p = components(pattern), s = components(path);
  if (p.size() != s.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!glob_match(p[i], s[i])) return false;
  return true;
}

void RootfsRules::add(const std::string& artifact, const RootfsEntry& e) {
  ++entries_;
  std::vector<Finding> own;
  auto parts = components(e.path);
  std::string prefix;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    prefix += "/";
    prefix += parts[i];
    bool self = i + 1 == parts.size();
    for (const HygieneRule* rule : audit_rules()) {
      if (!hygiene_pattern_matches(rule->pattern, prefix)) continue;
      switch (rule->action) {
        case HygieneRule::empty_file:
          if (self && e.type == RootfsEntry::Type::file && e.size > 0)
            own.push_back({artifact, e.path, "not empty (" + std::to_string(e.size) + " bytes)", rule->why});
          break;
        case HygieneRule::remove:
          // Reported once, at the outermost path the rule names; what lies below goes with it.
          if (self) own.push_back({artifact, e.path, "present", rule->why});
          else by_path_.try_emplace(prefix, std::vector<Finding>{{artifact, prefix, "present", rule->why}});
          break;
        case HygieneRule::remove_files_below:
          if (!self && e.type == RootfsEntry::Type::file)
            own.push_back({artifact, e.path, "a file below " + prefix, rule->why});
          break;
        case HygieneRule::mask:
          if (self) masked_[e.path] = e.type == RootfsEntry::Type::symlink && e.link == "/dev/null";
          break;
      }
    }
  }
  for (const HygieneRule* rule : audit_rules())
    if (rule->action == HygieneRule::mask && (e.path == rule->masks || e.path == rule->unless))
      mask_inputs_.try_emplace(e.path, artifact);
  bool sticky_dir = e.type == RootfsEntry::Type::directory && (e.mode & 01000);
  if ((e.type == RootfsEntry::Type::file || e.type == RootfsEntry::Type::directory) && (e.mode & 0002) && !sticky_dir)
    own.push_back({artifact, e.path, "writable by every user (mode " + octal(e.mode) + ")",
                   "any process on any node can change it"});
  // The kernel's unpacker lets a later part replace an entry, so its findings replace too.
  by_path_[e.path] = std::move(own);
  uids_.erase(e.path);
  gids_.erase(e.path);
  if (e.uid != 0) uids_[e.path] = {artifact, e.uid};
  if (e.gid != 0) gids_[e.path] = {artifact, e.gid};
}

void RootfsRules::set_passwd(const std::string& text) {
  have_passwd_ = true;
  known_uids_ = account_ids(text);
}

void RootfsRules::set_group(const std::string& text) {
  have_group_ = true;
  known_gids_ = account_ids(text);
}

std::vector<Finding> RootfsRules::findings() const {
  std::map<std::string, std::vector<Finding>> all = by_path_;
  auto owners = [&](const std::map<std::string, Owned>& ids, const std::set<long>& known, bool have, const char* what,
                    const char* file) {
    for (const auto& [path, o] : ids) {
      if (known.count(o.id)) continue;
      std::string problem =
          std::string("owned by ") + what + " " + std::to_string(o.id) + ", which " +
          (have ? std::string("is not in the image's ") + file : std::string("cannot be checked: no ") + file);
      all[path].push_back(
          {o.artifact, path, problem, "a build host's account leaked in; on a node it is whoever gets that id"});
    }
  };
  for (const HygieneRule* rule : audit_rules()) {
    if (rule->action != HygieneRule::mask) continue;
    auto generator = mask_inputs_.find(rule->masks);
    if (generator == mask_inputs_.end() || mask_inputs_.count(rule->unless)) continue;
    auto link = masked_.find(rule->pattern);
    if (link != masked_.end() && link->second) continue;
    all[rule->pattern].push_back({generator->second, rule->pattern,
                                  link == masked_.end()
                                      ? "absent: " + rule->masks + " runs at every boot"
                                      : "not a link to /dev/null: " + rule->masks + " runs at every boot",
                                  rule->why});
  }
  owners(uids_, known_uids_, have_passwd_, "uid", "/etc/passwd");
  owners(gids_, known_gids_, have_group_, "gid", "/etc/group");
  std::vector<Finding> out;
  for (auto& [path, list] : all) out.insert(out.end(), list.begin(), list.end());
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.artifact < b.artifact; });
  return out;
}

}  // namespace railyard
