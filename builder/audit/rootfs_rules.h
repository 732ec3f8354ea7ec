// The checks `railyard audit` makes on every entry of an image's root filesystem: the
// hygiene stage's rules (core/image_hygiene.h) read as "must not be there", plus what an
// operator cares about in an image that boots a whole fleet: owners that are no user of
// the image (a build host's user leaking in) and files any user may change. Pure: archive
// entries in, findings out, so that tests need no archive.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "finding.h"

namespace railyard {

struct RootfsEntry {
  std::string path;  // absolute, normalised: "/etc/machine-id"
  enum class Type { file, directory, symlink, other } type = Type::file;
  unsigned mode = 0;  // permission bits with setuid/setgid/sticky
  long uid = 0, gid = 0;
  std::uint64_t size = 0;
  std::string link = {};  // a symlink's target
};

// Whether `path` is named by a hygiene pattern: component by component, `*` and `?`
// never crossing a '/'.
bool hygiene_pattern_matches(std::string_view pattern, std::string_view path);

// Fed the entries of every part of the root filesystem in boot order (a later part
// overrides an earlier one as the kernel's unpacker does); findings come out sorted.
class RootfsRules {
 public:
  // `artifact` names the part the entry came from, for the finding.
  void add(const std::string& artifact, const RootfsEntry& e);
  // The image's /etc/passwd and /etc/group (the last part's), which say which owners are
  // its own. Without them every owner but root is reported.
  void set_passwd(const std::string& text);
  void set_group(const std::string& text);
  std::vector<Finding> findings() const;
  std::size_t entries() const { return entries_; }

 private:
  struct Owned {
    std::string artifact;
    long id;
  };
  std::size_t entries_ = 0;
  std::map<std::string, std::vector<Finding>> by_path_;  // per path; a later part replaces them
  std::map<std::string, Owned> uids_, gids_;
  // Mask rules: the paths seen that a rule masks or is held off by (with the part that had
  // them), and each masking link seen, whether it points to /dev/null.
  std::map<std::string, std::string> mask_inputs_;
  std::map<std::string, bool> masked_;
  std::set<long> known_uids_{0}, known_gids_{0};
  bool have_passwd_ = false, have_group_ = false;
};

}  // namespace railyard
