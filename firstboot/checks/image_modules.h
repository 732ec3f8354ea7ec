// The kernel modules of the image's driver bundles, as the running kernel has them: for the
// report's `modules`, so that an operator sees which vendor modules (and which versions)
// the node runs, beside the bundles the image was built with.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kernel/host.h"

namespace railyard {

// Where the build leaves its record of the bundles (builder's drivers stage).
inline constexpr const char* kImageDriversRecord = "/usr/share/railyard/image/drivers.json";

// One entry per module a bundle names (its `modules`) or DKMS built for it (its .ko files),
// in bundle order: {name, bundle, bundle_version, built (the DKMS module's version, or
// null), loaded, version and srcversion (the kernel's /sys/module/NAME, null when not loaded
// or not given)}. null when the image has no record (the agent outside a railyard image);
// an unreadable record is an array with one entry saying so in `error`.
nlohmann::ordered_json image_modules(Files& files, Modules& kernel_modules);

}  // namespace railyard
