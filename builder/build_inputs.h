// What the build plan needs from disk, as digests: overlay trees, driver signing keys, the
// host's apt sources and the agent. What cannot be found stays empty, and the plan shows it
// as MISSING instead of inventing a key.
#pragma once

#include <string>

#include "build_plan.h"
#include "openssl_hasher.h"
#include "outcome.h"

namespace railyard {

struct InputLocations {
  std::string overlays_dir;        // where the recipe's overlays were found
  std::string agent;               // the railyard-firstboot binary; "" when not found
  std::string apt_dir = "/etc/apt";  // the host's, for mirror = "host"
};

// Fails only on read errors of things that exist; absence is the plan's business.
Outcome<ContentDigests> digest_inputs(const LoadedRecipe& lr, const InputLocations& where, OpenSslHasher& hasher);

// railyard-firstboot beside this executable (the build tree and an installed bindir both
// keep the two programs together); "" when it is not there.
std::string find_agent_beside(const std::string& self_exe);

}  // namespace railyard
