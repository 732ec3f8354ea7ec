// The trim stage's pure part: which modules outside the dropped directories need one inside
// them (read from the kernel's own modules.dep, which lists every dependency, transitive
// ones included). They could never load, so they go too, and the manifest lists them.
#pragma once

#include <string>
#include <vector>

namespace railyard {

// `modules_dep` is modules.dep's text ("kernel/a.ko: kernel/b.ko kernel/c.ko"); `dropped`
// are directories relative to /lib/modules/KVER/kernel ("sound", "drivers/media").
// Returns those modules' paths, sorted.
std::vector<std::string> stranded_modules(const std::string& modules_dep, const std::vector<std::string>& dropped);

// True when module path `path` ("kernel/sound/core/snd.ko") lies under a dropped directory.
bool is_dropped(const std::string& path, const std::vector<std::string>& dropped);

}  // namespace railyard
