// ECN (DCQCN) on the RoCE priority, as notification point and reaction point: files of the
// NVIDIA out-of-tree driver. Absent upstream: unsupported, with the reason.
#include "objects/ecn.h"

#include "verify/result.h"

namespace railyard {

namespace {

constexpr const char* kRoles[] = {"roce_np", "roce_rp"};

std::string enable_path(const RailPlan& rail, const std::string& role) {
  return "/sys/class/net/" + rail.ifname + "/ecn/" + role + "/enable/" + std::to_string(rail.ecn_priority);
}

}  // namespace

void apply_ecn(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.ecn_priority < 0) continue;
    for (const char* role : kRoles) {
      std::string object = rail_label(rail) + ": ECN " + role + " priority " + std::to_string(rail.ecn_priority);
      std::string path = enable_path(rail, role);
      auto now = k.host.read_file(path);
      if (!now.ok()) {
        out.push_back({object, ChangeOutcome::unsupported, "", "1",
                       path + " does not exist (no ECN control in this driver)"});
        continue;
      }
      if (*now == "1") {
        out.push_back({object, ChangeOutcome::unchanged, "1", "1", ""});
        continue;
      }
      out.push_back(change_from(object, k.host.write_file(path, "1"), *now, "1"));
    }
  }
}

void verify_ecn(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto np = ctx.kernel.host.read_file(enable_path(rail, kRoles[0]));
  auto rp = ctx.kernel.host.read_file(enable_path(rail, kRoles[1]));
  if (!np.ok()) checks::from_status(r, np.status());
  else if (!rp.ok()) checks::from_status(r, rp.status());
  else if (*np == "1" && *rp == "1") checks::pass(r, "np 1, rp 1");
  else checks::fail(r, "np " + *np + ", rp " + *rp);
}

}  // namespace railyard
