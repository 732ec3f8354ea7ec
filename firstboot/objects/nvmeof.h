// NVMe over Fabrics: the host identity, discovery.conf and each planned connection over its rail.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "apply/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "verify/verify.h"

namespace railyard {

void apply_nvmeof(const Plan&, Kernel&, std::vector<Change>&);

// How retries tell time: the real clock and sleep, or a test's.
struct RetryClock {
  std::function<std::chrono::steady_clock::time_point()> now = [] { return std::chrono::steady_clock::now(); };
  std::function<void(std::chrono::milliseconds)> sleep;  // empty: std::this_thread::sleep_for
};

// NVMe-oF connections that failed are tried again every `interval` until `wait` has passed
// on the clock (a connect to an absent host takes seconds itself): a target may still be
// starting (a rack powered on at once, a target rebooting). Each one's failed Change is
// replaced by its last outcome; a late success says after how long. Nothing is retried
// when nothing failed.
void retry_nvmeof(const Plan& plan, Kernel& kernel, std::vector<Change>& changes, std::chrono::milliseconds wait,
                  std::chrono::milliseconds interval, const RetryClock& clock = {});

// nvmeof.N.connected: a live controller for the target over the planned transport.
void verify_nvmeof_connected(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r);
// nvmeof.N.namespace_read: the controller's first namespace readable.
void verify_nvmeof_namespace(const VerifyContext& ctx, const NvmeofConnection& c, CheckResult& r);

}  // namespace railyard
