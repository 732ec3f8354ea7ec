// Default ToS and RoCE mode of RDMA-CM connections, per device, through configfs
// (/sys/kernel/config/rdma_cm/DEV/ports/1/): what cma_roce_tos does.
#include "apply.h"

namespace railyard {

namespace {

void set(Kernel& k, const std::string& object, const std::string& path, const std::string& want,
         std::vector<Change>& out) {
  auto now = k.host.read_file(path);
  if (!now.ok()) {
    out.push_back(change_from(object, now.status, "", want));
    return;
  }
  if (*now.value == want) {
    out.push_back({object, Outcome::unchanged, *now.value, want, ""});
    return;
  }
  out.push_back(change_from(object, k.host.write_file(path, want), *now.value, want));
}

}  // namespace

void apply_roce_tos(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  const std::string root = "/sys/kernel/config/rdma_cm";
  for (const auto& rail : plan.rails) {
    if (rail.rdma_device.empty()) continue;
    std::string object = rail_label(rail) + ": RoCE ToS";
    if (!k.host.list_directory(root).ok()) {
      out.push_back({object, Outcome::unsupported, "", std::to_string(rail.roce_tos),
                     root + " is missing: configfs not mounted or rdma_cm not loaded"});
      continue;
    }
    std::string dev = root + "/" + rail.rdma_device;
    if (Status s = k.host.make_directory(dev); !s.ok()) {
      out.push_back(change_from(object, s, "", std::to_string(rail.roce_tos)));
      continue;
    }
    std::string port = dev + "/ports/" + std::to_string(rail.rdma_port) + "/";
    set(k, object, port + "default_roce_tos", std::to_string(rail.roce_tos), out);
    set(k, rail_label(rail) + ": RoCE mode", port + "default_roce_mode", "RoCE v2", out);
  }
}

}  // namespace railyard
