// Default ToS and RoCE mode of RDMA-CM connections, per device, through configfs
// (/sys/kernel/config/rdma_cm/DEV/ports/1/): what cma_roce_tos does.
#include "objects/roce_tos.h"

#include "objects/result.h"

namespace railyard {

namespace {

constexpr const char* kRdmaCm = "/sys/kernel/config/rdma_cm";

// The device's port directory in rdma_cm's configfs, with a trailing '/'.
std::string port_dir(const RailPlan& rail) {
  return std::string(kRdmaCm) + "/" + rail.rdma_device + "/ports/" + std::to_string(rail.rdma_port) + "/";
}

void set(Kernel& k, const std::string& object, const std::string& path, const std::string& want,
         std::vector<Change>& out) {
  auto now = k.host.files.read_file(path);
  if (!now.ok()) {
    out.push_back(change_from(object, now.status(), "", want));
    return;
  }
  if (*now == want) {
    out.push_back({object, ChangeOutcome::unchanged, *now, want, ""});
    return;
  }
  out.push_back(change_from(object, k.host.files.write_file(path, want), *now, want));
}

}  // namespace

void apply_roce_tos(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.rdma_device.empty()) continue;
    std::string object = rail_label(rail) + ": RoCE ToS";
    if (!k.host.files.list_directory(kRdmaCm).ok()) {
      out.push_back({object, ChangeOutcome::unsupported, "", std::to_string(rail.roce_tos),
                     std::string(kRdmaCm) + " is missing: configfs not mounted or rdma_cm not loaded"});
      continue;
    }
    if (Status s = k.host.files.make_directory(std::string(kRdmaCm) + "/" + rail.rdma_device); !s.ok()) {
      out.push_back(change_from(object, s, "", std::to_string(rail.roce_tos)));
      continue;
    }
    set(k, object, port_dir(rail) + "default_roce_tos", std::to_string(rail.roce_tos), out);
    set(k, rail_label(rail) + ": RoCE mode", port_dir(rail) + "default_roce_mode", "RoCE v2", out);
  }
}

void verify_roce_tos(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  auto v = ctx.kernel.host.files.read_file(port_dir(rail) + "default_roce_tos");
  const std::string want = std::to_string(rail.roce_tos);
  if (!v.ok()) checks::from_status(r, v.status());
  else if (*v == want) checks::pass(r, *v);
  else checks::fail(r, *v);
}

}  // namespace railyard
