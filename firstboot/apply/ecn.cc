// ECN (DCQCN) on the RoCE priority, as notification point and reaction point: files of the
// NVIDIA out-of-tree driver. Absent upstream: unsupported, with the reason.
#include "apply.h"

namespace railyard {

void apply_ecn(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.ecn_priority < 0) continue;
    for (const char* role : {"roce_np", "roce_rp"}) {
      std::string object = rail_label(rail) + ": ECN " + role + " priority " + std::to_string(rail.ecn_priority);
      std::string path = "/sys/class/net/" + rail.ifname + "/ecn/" + role + "/enable/" + std::to_string(rail.ecn_priority);
      auto now = k.host.read_file(path);
      if (!now.ok()) {
        out.push_back({object, Outcome::unsupported, "", "1", path + " does not exist (no ECN control in this driver)"});
        continue;
      }
      if (*now.value == "1") {
        out.push_back({object, Outcome::unchanged, "1", "1", ""});
        continue;
      }
      out.push_back(change_from(object, k.host.write_file(path, "1"), *now.value, "1"));
    }
  }
}

}  // namespace railyard
