#include "manifest.h"

#include <algorithm>

#include "text.h"
#include "version.h"

namespace railyard {

std::vector<ManifestPackage> installed_packages(const std::string& dpkg_status) {
  std::vector<ManifestPackage> out;
  ManifestPackage current;
  bool installed = false;
  auto flush = [&] {
    if (installed && !current.name.empty()) out.push_back(current);
    current = {};
    installed = false;
  };
  for (const auto& line : split(dpkg_status, '\n')) {
    if (line.empty()) {
      flush();
      continue;
    }
    auto colon = line.find(':');
    if (line[0] == ' ' || colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (key == "Package") current.name = value;
    else if (key == "Version") current.version = value;
    else if (key == "Architecture") current.arch = value;
    else if (key == "Status") installed = value.ends_with(" installed");
  }
  flush();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string boot_ipxe(const std::string& recipe_name, const std::string& kernel_version,
                      const std::vector<std::string>& cmdline, const std::vector<std::string>& initrds) {
  std::string out = "#!ipxe\n# " + recipe_name + ": kernel " + kernel_version + ", built by railyard " + kVersion +
                    "\n# Paths are relative to this script's URL (HTTP or TFTP).\n";
  std::string args = join(cmdline, " ");
  // EFI kernels find their initrds by name on the command line; BIOS ones ignore it.
  for (const auto& i : initrds) args += " initrd=" + i;
  out += "kernel vmlinuz " + trim(args) + "\n";
  for (const auto& i : initrds) out += "initrd " + i + "\n";
  out += "boot\n";
  return out;
}

}  // namespace railyard
