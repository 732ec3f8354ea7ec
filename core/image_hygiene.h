// What the hygiene stage strips from every image and `railyard audit` checks for: anything
// that identifies one machine or one build, since one image boots a whole SKU, and the
// timers and generators a stateless node never needs.
#pragma once

#include <string>
#include <vector>

namespace railyard {

struct HygieneRule {
  std::string pattern;  // absolute path inside the image; `*` matches within one component
  enum Action {
    empty_file,          // keep the file, empty (systemd treats an empty machine-id as "first boot")
    remove,              // files, links or whole directories
    remove_files_below,  // regular files anywhere under a directory; the directories stay for packages that need them
    mask,                // `pattern` made a link to /dev/null, which systemd takes in place of `masks`
  } action = remove;
  std::string why;
  // mask only: what the link masks (a systemd generator, which runs at every boot before any
  // unit, or a unit started at every boot); nothing is masked in an image without it, nor in
  // one that has `unless`, the file that would give it work (an operator's /etc/crypttab in an
  // overlay).
  std::string masks = {};
  std::string unless = {};
};

// Versioned with the list: changing it changes the hygiene stage's cache key.
inline constexpr int kHygieneRulesVersion = 7;
const std::vector<HygieneRule>& hygiene_rules();
std::string to_string(HygieneRule::Action a);

}  // namespace railyard
