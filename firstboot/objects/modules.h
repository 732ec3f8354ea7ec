// The kernel modules the plan needs, loaded through libkmod in the plan's order.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_modules(const Plan&, Kernel&, std::vector<Change>&);

// The modules a plan of the recipe will load (recipe_modules()), loaded on a thread of their
// own while first boot waits for its devices: the wait is mostly idle time for the CPU, and
// the loads (seconds under emulation, each module's signature checked) are otherwise the
// start of apply. The thread runs at the lowest priority while the wait goes on, and at the
// normal one from finish(), when first boot needs the modules. `host` is the thread's alone
// until finish(), which joins it and returns what it did as apply_modules records it; the
// destructor joins too.
class ModulePreload {
 public:
  ModulePreload(Modules& host, std::vector<std::string> modules);
  ~ModulePreload();
  ModulePreload(const ModulePreload&) = delete;
  ModulePreload& operator=(const ModulePreload&) = delete;
  std::vector<Change> finish();

 private:
  std::vector<Change> done_;
  std::mutex mu_;        // guards the two below, between the thread and finish()
  pid_t tid_ = 0;        // the loading thread while it runs, 0 before and after
  bool needed_ = false;  // finish() was called: no more lowest priority
  std::thread thread_;
};

// A module apply found loaded because the preload loaded it keeps the preload's change
// (changed, or failed and then retried by apply), so that the report says who loaded it.
void merge_preloaded(std::vector<Change>& applied, const std::vector<Change>& preloaded);

// gpudirect.peermem: nvidia_peermem loaded.
void verify_peermem(const VerifyContext& ctx, CheckResult& r);

}  // namespace railyard
