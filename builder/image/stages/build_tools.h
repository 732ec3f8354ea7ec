// The DKMS build tools (dkms, the kernel's headers, the compiler they pull in): installed for
// the drivers stage's builds, and removed from the image once the modules are built unless
// the recipe keeps them (image.keep_build_tools). A stateless node never compiles anything.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "stage.h"

namespace railyard {

struct BuildTools {
  std::vector<std::string> removed;  // packages purged, sorted
  std::vector<std::string> kept;     // packages left in the image, sorted
  std::string why_kept;              // "" when nothing was kept or the recipe asked to keep them
  // Packages that went with the tools because they depend on them, each "NAME VERSION": a
  // vendor's DKMS source packages (and meta packages depending on those), whose built modules
  // stay in the image. Sorted.
  std::vector<std::string> sources_removed;
};

// The packages dpkg lists as installed in the image.
Outcome<std::set<std::string>> installed_package_names(const std::string& root);

// The purges apt would make, from `apt-get -s purge` output ("Purg NAME [...]").
std::vector<std::string> simulated_purges(const std::string& apt_output);

// Purges `added` (the packages the tools brought in). A package that depends on them goes
// with them when the drivers stage installed it (`stage_added`: a vendor's *-dkms package on
// dkms, a meta package on that), its built modules (`modules`, paths in the image) kept
// and indexed again (depmod for `kver`); one the base had keeps them all, and says so in
// why_kept.
Outcome<BuildTools> remove_build_tools(StageContext& ctx, const std::set<std::string>& added,
                                       const std::set<std::string>& stage_added,
                                       const std::vector<std::string>& modules, const std::string& kver);

// The record the pack stage reads back into manifest.json's build_tools.
std::string render_build_tools_record(const BuildTools& t);
Outcome<BuildTools> parse_build_tools_record(const std::string& text, const std::string& path);
inline constexpr const char* kBuildToolsRecord = "build-tools.json";

}  // namespace railyard
