// DSCP trust: the NVIDIA out-of-tree driver's qos/trust file. Upstream mlx5 has none; it
// switches the port to DSCP trust with the first DSCP application entry (dscp_app.cc).
#include "objects/trust.h"

#include <algorithm>

#include "kernel/dcb_message.h"
#include "objects/result.h"

namespace railyard {

namespace {

std::string trust_path(const RailPlan& rail) { return "/sys/class/net/" + rail.ifname + "/qos/trust"; }

}  // namespace

void apply_trust(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (!rail.trust) continue;
    const std::string want = to_string(*rail.trust);
    std::string object = rail_label(rail) + ": trust";
    std::string path = trust_path(rail);
    auto now = k.host.files.read_file(path);
    if (!now.ok()) {
      out.push_back({object, ChangeOutcome::unsupported, "", want,
                     path + " does not exist (upstream mlx5 trusts DSCP once a DSCP app entry is set)"});
      continue;
    }
    if (*now == want) {
      out.push_back({object, ChangeOutcome::unchanged, *now, want, ""});
      continue;
    }
    out.push_back(change_from(object, k.host.files.write_file(path, want), *now, want));
  }
}

void verify_trust(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const std::string want = rail.trust ? to_string(*rail.trust) : "";
  auto v = ctx.kernel.host.files.read_file(trust_path(rail));
  if (v.ok()) {
    if (*v == want) checks::pass(r, *v);
    else checks::fail(r, *v);
    return;
  }
  // Upstream mlx5 has no trust file: a DSCP app entry is what switches it to DSCP trust.
  auto apps = ctx.kernel.dcb.apps(rail.ifname);
  bool dscp = apps.ok() &&
              std::any_of(apps->begin(), apps->end(), [](const DcbApp& a) { return a.selector == kDcbAppSelDscp; });
  if (rail.trust == Trust::dscp && dscp) checks::pass(r, "dscp", "implied by the DSCP app entries (no qos/trust file)");
  else checks::from_status(r, apps.ok() ? v.status() : apps.status());
}

}  // namespace railyard
