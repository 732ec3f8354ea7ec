// Kernel modules the plan needs, loaded through libkmod in the plan's order.
#include "objects/modules.h"

#include "verify/result.h"

namespace railyard {

void apply_modules(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& m : plan.modules) {
    std::string object = "module " + m;
    if (k.host.module_loaded(m)) {
      out.push_back({object, ChangeOutcome::unchanged, "loaded", "loaded", ""});
      continue;
    }
    Status s = k.host.load_module(m);
    Change c = change_from(object, s, "not loaded", "loaded");
    if (!s.ok()) c.outcome = ChangeOutcome::failed;  // a missing module is a broken image, not an absent knob
    out.push_back(c);
  }
}

void verify_peermem(const VerifyContext& ctx, CheckResult& r) {
  if (ctx.kernel.host.module_loaded("nvidia_peermem")) checks::pass(r, "loaded");
  else
    checks::fail(r, "not loaded", "GPUDirect RDMA falls back to host memory: rebuild nvidia-peermem against the OFED in the image");
}

}  // namespace railyard
