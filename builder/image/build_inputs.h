// What the build plan needs from disk, as digests: overlay trees, driver signing keys, the
// host's apt sources and the agent. What cannot be found stays empty, and the plan shows it
// as MISSING instead of inventing a key.
#pragma once

#include <string>
#include <vector>

#include "build_plan.h"
#include "openssl_hasher.h"
#include "outcome.h"

namespace railyard {

struct InputLocations {
  std::string overlays_dir;          // where the recipe's overlays were found
  std::string agent;                 // the agent package (.deb); "" when not found
  std::string apt_dir = "/etc/apt";  // the host's, for mirror = "host"
};

// Fails only on read errors of things that exist; absence is the plan's business.
Outcome<ContentDigests> digest_inputs(const LoadedRecipe& lr, const InputLocations& where, OpenSslHasher& hasher);

// The host's apt source files that mirror = "host" bootstraps from (and the plan digests):
// sources.list when not empty, then sources.list.d/*.list and *.sources in name order.
std::vector<std::string> host_apt_source_files(const std::string& apt_dir);

// The agent's Debian package (railyard-firstboot_VERSION_ARCH.deb, built by CPack with
// railyard) in packages/ beside this executable (the build tree) or in
// ../share/railyard/packages/ (installed); "" when it is in neither.
std::string find_agent_package(const std::string& self_exe);

}  // namespace railyard
