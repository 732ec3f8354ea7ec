// DSCP trust: the NVIDIA out-of-tree driver's qos/trust file. Upstream mlx5 has none; it
// switches the port to DSCP trust with the first DSCP application entry (dcb_app.cc).
#include "apply.h"

namespace railyard {

void apply_trust(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.trust.empty()) continue;
    std::string object = rail_label(rail) + ": trust";
    std::string path = "/sys/class/net/" + rail.ifname + "/qos/trust";
    auto now = k.host.read_file(path);
    if (!now.ok()) {
      out.push_back({object, Outcome::unsupported, "", rail.trust,
                     path + " does not exist (upstream mlx5 trusts DSCP once a DSCP app entry is set)"});
      continue;
    }
    if (*now.value == rail.trust) {
      out.push_back({object, Outcome::unchanged, *now.value, rail.trust, ""});
      continue;
    }
    out.push_back(change_from(object, k.host.write_file(path, rail.trust), *now.value, rail.trust));
  }
}

}  // namespace railyard
