// Soft-RoCE (rxe) devices for lab rails, created natively over RDMA netlink. Always on the
// physical interface: rxe refuses VLAN devices, and a VLAN's address still shows up in the
// parent's GID table.
#include "objects/soft_roce.h"

namespace railyard {

void apply_soft_roce(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& rail : plan.rails) {
    if (rail.soft_roce_device.empty()) continue;
    std::string object = rail_label(rail) + ": Soft-RoCE " + rail.soft_roce_device;
    auto parent = k.host.files.read_file("/sys/class/infiniband/" + rail.soft_roce_device + "/parent");
    if (parent.ok()) {
      if (*parent == rail.ifname)
        out.push_back({object, ChangeOutcome::unchanged, "on " + rail.ifname, "on " + rail.ifname, ""});
      else
        out.push_back({object, ChangeOutcome::failed, "on " + *parent, "on " + rail.ifname,
                       "an RDMA device named " + rail.soft_roce_device + " already serves " + *parent});
      continue;
    }
    out.push_back(change_from(object, k.host.rdma_links.add_rxe(rail.soft_roce_device, rail.ifname), "absent",
                              "on " + rail.ifname));
  }
}

}  // namespace railyard
