// NVMe over Fabrics: the host identity, discovery.conf and each planned connection over its rail.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "objects/change.h"
#include "clock.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_nvmeof(const Plan&, Kernel&, std::vector<Change>&);

// NVMe-oF connections that failed are tried again every `interval` until `wait` has passed
// on the clock (a connect to an absent host takes seconds itself): a target may still be
// starting (a rack powered on at once, a target rebooting). Each one's failed Change is
// replaced by its last outcome; a late success says after how long. Nothing is retried
// when nothing failed.
void retry_nvmeof(const Plan& plan, Kernel& kernel, std::vector<Change>& changes, std::chrono::milliseconds wait,
                  std::chrono::milliseconds interval, Clock& clock = real_clock());

// nvmeof.N.connected: a live controller for the target over the planned transport.
void verify_nvmeof_connected(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r);
// nvmeof.N.namespace_read: the controller's first namespace readable.
void verify_nvmeof_namespace(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r);

}  // namespace railyard
