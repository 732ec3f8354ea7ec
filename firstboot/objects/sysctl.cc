// Rail sysctls (arp_ignore, arp_announce, rp_filter...) through /proc/sys. The path names the
// netdev as /proc/sys spells it: a VLAN device "ens1f0np0.200" is a directory of that exact
// name, so the path is used as is, never translated from sysctl(8)'s dotted form.
#include "objects/sysctl.h"

#include <cctype>

namespace railyard {

namespace {

// Whitespace runs as one space, none at the ends: "4096\t87380 " and "4096 87380" are equal.
std::string normalized(const std::string& s) {
  std::string out;
  bool space = false;
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

}  // namespace

void apply_sysctls(const Plan& plan, Kernel& kernel, std::vector<Change>& out) {
  for (const auto& rail : plan.rails)
    for (const auto& sysctl : rail.sysctls) {
      std::string object = rail_label(rail) + ": sysctl " + sysctl.path;
      std::string path = "/proc/sys/" + sysctl.path;
      auto current = kernel.host.files.read_file(path);
      if (!current.ok()) {
        // These exist for every netdev on every kernel: missing means the netdev is missing.
        out.push_back({object, ChangeOutcome::failed, "", sysctl.value, current.error()});
        continue;
      }
      std::string before = normalized(*current);
      if (before == normalized(sysctl.value))
        out.push_back({object, ChangeOutcome::unchanged, before, sysctl.value, ""});
      else out.push_back(change_from(object, kernel.host.files.write_file(path, sysctl.value), before, sysctl.value));
    }
}

}  // namespace railyard
