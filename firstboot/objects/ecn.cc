// ECN (DCQCN) on the RoCE priority, as notification point and reaction point: files of the
// NVIDIA out-of-tree driver. Absent upstream: unsupported, with the reason.
#include "objects/ecn.h"

#include "text.h"
#include "objects/result.h"

namespace railyard {

namespace {

constexpr const char* kRoles[] = {"roce_np", "roce_rp"};

std::string enable_path(const RailPlan& rail, const std::string& role) {
  return "/sys/class/net/" + rail.ifname + "/ecn/" + role + "/enable/" + std::to_string(rail.ecn_priority);
}

// The congestion notifications the rail sends as notification point: their DSCP
// (fabric.cnp_dscp) and the 802.1p priority that DSCP maps to, so that they travel on
// the class the switch gives them, never paused behind the data they are about.
struct CnpSetting {
  std::string name, path, value;
};

std::vector<CnpSetting> cnp_settings(const RailPlan& rail) {
  if (rail.cnp_dscp < 0) return {};
  std::string dir = "/sys/class/net/" + rail.ifname + "/ecn/roce_np/";
  int prio = rail.cnp_dscp < static_cast<int>(rail.dscp_to_priority.size())
                 ? rail.dscp_to_priority[static_cast<std::size_t>(rail.cnp_dscp)]
                 : rail.cnp_dscp >> 3;
  return {{"CNP DSCP", dir + "cnp_dscp", std::to_string(rail.cnp_dscp)},
          {"CNP priority", dir + "cnp_802p_prio", std::to_string(prio)}};
}

}  // namespace

void apply_ecn(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.ecn_priority < 0) continue;
    bool has_ecn = false;
    for (const char* role : kRoles) {
      std::string object = rail_label(rail) + ": ECN " + role + " priority " + std::to_string(rail.ecn_priority);
      std::string path = enable_path(rail, role);
      auto now = k.host.files.read_file(path);
      has_ecn = has_ecn || now.ok();
      if (!now.ok()) {
        out.push_back(
            {object, ChangeOutcome::unsupported, "", "1", path + " does not exist (no ECN control in this driver)"});
        continue;
      }
      if (*now == "1") {
        out.push_back({object, ChangeOutcome::unchanged, "1", "1", ""});
        continue;
      }
      out.push_back(change_from(object, k.host.files.write_file(path, "1"), *now, "1"));
    }
    // Without ECN at all (upstream mlx5, virtio) there are no notifications to mark: the
    // unsupported ECN above says it.
    for (const auto& cnp : has_ecn ? cnp_settings(rail) : std::vector<CnpSetting>{}) {
      std::string object = rail_label(rail) + ": " + cnp.name + " " + cnp.value;
      auto now = k.host.files.read_file(cnp.path);
      if (!now.ok()) {
        out.push_back({object, ChangeOutcome::unsupported, "", cnp.value,
                       cnp.path + " does not exist (this driver cannot set it; notifications keep the NIC's default)"});
        continue;
      }
      if (*now == cnp.value) {
        out.push_back({object, ChangeOutcome::unchanged, *now, cnp.value, ""});
        continue;
      }
      out.push_back(change_from(object, k.host.files.write_file(cnp.path, cnp.value), *now, cnp.value));
    }
  }
}

void verify_ecn(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto np = ctx.kernel.host.files.read_file(enable_path(rail, kRoles[0]));
  auto rp = ctx.kernel.host.files.read_file(enable_path(rail, kRoles[1]));
  if (!np.ok()) return checks::from_status(r, np.status());
  if (!rp.ok()) return checks::from_status(r, rp.status());
  std::string observed = "np " + *np + ", rp " + *rp;
  if (*np != "1" || *rp != "1") return checks::fail(r, observed);
  // The notifications' DSCP and priority, where the driver has them.
  std::vector<std::string> unsettable;
  for (const auto& cnp : cnp_settings(rail)) {
    auto now = ctx.kernel.host.files.read_file(cnp.path);
    if (!now.ok()) {
      unsettable.push_back(cnp.path);
      continue;
    }
    observed += ", " + cnp.name + " " + *now;
    if (*now != cnp.value) return checks::fail(r, observed + " (want " + cnp.value + ")");
  }
  if (!unsettable.empty())
    return checks::unsupported(
        r, observed, join(unsettable, ", ") + " missing: this driver cannot set the notifications' DSCP and priority");
  checks::pass(r, observed);
}

}  // namespace railyard
