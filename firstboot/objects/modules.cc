// Kernel modules the plan needs, loaded through libkmod in the plan's order.
#include "objects/modules.h"

#include <sys/resource.h>
#include <unistd.h>

#include "objects/result.h"

namespace railyard {

namespace {

Change load_one_module(Modules& host, const std::string& m) {
  std::string object = "module " + m;
  if (host.module_loaded(m)) return {object, ChangeOutcome::unchanged, "loaded", "loaded", ""};
  Status s = host.load_module(m);
  Change c = change_from(object, s, "not loaded", "loaded");
  if (!s.ok()) c.outcome = ChangeOutcome::failed;  // a missing module is a broken image, not an absent knob
  return c;
}

}  // namespace

void apply_modules(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& m : plan.modules) out.push_back(load_one_module(k.host.modules, m));
}

ModulePreload::ModulePreload(Modules& host, std::vector<std::string> modules)
    : thread_([this, &host, modules = std::move(modules)] {
        // At the lowest priority while first boot waits: the loads fill the wait's idle
        // time, and must never take the CPU from udev, which is what the wait is for (on
        // Linux a thread's nice value is its own).
        {
          std::lock_guard lock(mu_);
          tid_ = ::gettid();
          if (!needed_) ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid_), 19);
        }
        for (const auto& m : modules) done_.push_back(load_one_module(host, m));
        std::lock_guard lock(mu_);
        tid_ = 0;
      }) {}

ModulePreload::~ModulePreload() {
  if (thread_.joinable()) thread_.join();
}

std::vector<Change> ModulePreload::finish() {
  {
    // First boot waits for the loads now: at nice 19 they would get what the rest of the
    // boot leaves, a few percent of a CPU (the storage target waited seconds per module under
    // emulation). Raising the priority back needs CAP_SYS_NICE, which the agent has as
    // root; without it the loads finish at the priority they have.
    std::lock_guard lock(mu_);
    needed_ = true;
    if (tid_ != 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid_), 0);
  }
  if (thread_.joinable()) thread_.join();
  return done_;
}

void merge_preloaded(std::vector<Change>& applied, const std::vector<Change>& preloaded) {
  for (auto& c : applied) {
    if (c.outcome != ChangeOutcome::unchanged) continue;
    for (const auto& p : preloaded)
      if (p.object == c.object && p.outcome == ChangeOutcome::changed) {
        c = p;
        c.detail = c.detail.empty() ? "while waiting for the devices" : c.detail + "; while waiting for the devices";
        break;
      }
  }
}

void verify_peermem(const VerifyContext& ctx, CheckResult& r) {
  if (ctx.kernel.host.modules.module_loaded("nvidia_peermem")) checks::pass(r, "loaded");
  else
    checks::fail(r, "not loaded",
                 "GPUDirect RDMA falls back to host memory: rebuild nvidia-peermem against the OFED in the image");
}

}  // namespace railyard
