#include "checks/hardware.h"

#include <algorithm>

#include "nccl.h"
#include "text.h"
#include "objects/result.h"

namespace railyard::checks {

namespace {

std::string link_text(const PciFunction& p) {
  return p.current_link_speed + " x" + std::to_string(p.current_link_width);
}

// A PCIe link at least as planned; below its own maximum (downtrained) is a warning.
void pcie_link(const HardwareSpec& hw, const PciFunction& p, CheckResult& r) {
  int gen = pcie_generation(p.current_link_speed);
  bool below = (hw.pcie_gen > 0 && gen < hw.pcie_gen) || (hw.pcie_width > 0 && p.current_link_width < hw.pcie_width);
  bool downtrained = gen < pcie_generation(p.max_link_speed) || p.current_link_width < p.max_link_width;
  std::string detail = downtrained
                           ? "downtrained: the device can do " + p.max_link_speed + " x" +
                                 std::to_string(p.max_link_width) + " (reseat the card or riser, check the slot)"
                           : "";
  if (below) fail(r, link_text(p), detail);
  else if (downtrained) warn(r, link_text(p), detail);
  else pass(r, link_text(p));
}

// The rail's NIC as rediscovered; fails the check when it is gone.
const Nic* rail_nic(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const Nic* nic = ctx.now.nic(rail.ifname);
  if (!nic) fail(r, "absent", rail.ifname + " is gone");
  return nic;
}

}  // namespace

const RdmaDevice* rail_rdma_device(const Inventory& now, const RailPlan& rail) {
  if (const RdmaDevice* d = now.rdma_device(rail.rdma_device)) return d;
  for (const auto& d : now.rdma)
    if (d.netdev == rail.ifname) return &d;
  return nullptr;
}

void gpu_count(const VerifyContext& ctx, CheckResult& r) {
  std::string n = std::to_string(ctx.now.gpus.size());
  if (n == r.expected) pass(r, n);
  else fail(r, n, "GPUs missing from the bus (fallen off, or the driver failed to bind): check nvidia-smi and dmesg");
}

void gpu_model(const VerifyContext& ctx, CheckResult& r) {
  const auto& gpus = ctx.now.gpus;
  const auto& ids = ctx.plan.hardware.gpu_device_ids;
  std::string bad;
  for (const auto& g : gpus)
    if (std::find(ids.begin(), ids.end(), g.pci.device) == ids.end())
      bad += (bad.empty() ? "" : ", ") + g.pci.bdf + " is " + g.pci.device;
  if (bad.empty()) pass(r, gpus.empty() ? "no GPU" : "device " + gpus.front().pci.device);
  else fail(r, bad);
}

void gpu_pcie_link(const VerifyContext& ctx, int index, CheckResult& r) {
  auto i = static_cast<std::size_t>(index);
  const Gpu* gpu = nullptr;
  if (i < ctx.plan.gpus.size())
    for (const auto& g : ctx.now.gpus)
      if (g.pci.bdf == ctx.plan.gpus[i]) gpu = &g;
  if (!gpu) fail(r, "GPU " + (i < ctx.plan.gpus.size() ? ctx.plan.gpus[i] : std::to_string(i)) + " missing");
  else pcie_link(ctx.plan.hardware, gpu->pci, r);
}

void rails_count(const VerifyContext& ctx, CheckResult& r) {
  int present = 0;
  for (const auto& rail : ctx.plan.rails)
    if (ctx.now.nic(rail.ifname)) ++present;
  std::string n = std::to_string(present);
  if (n == r.expected) pass(r, n);
  else fail(r, n, "rail NICs disappeared after planning");
}

void rail_affinity(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  std::string obs = rail.affinity ? to_string(*rail.affinity) : "-";
  if (rail.affinity && *rail.affinity > ctx.plan.hardware.max_affinity)
    fail(r, obs, "the GPU and its rail NIC are far apart: check the riser/slot population against the vendor's layout");
  else pass(r, obs);
}

void rail_pcie_link(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (const Nic* nic = rail_nic(ctx, rail, r)) pcie_link(ctx.plan.hardware, nic->pci, r);
}

void rail_speed(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const Nic* nic = rail_nic(ctx, rail, r);
  if (!nic) return;
  auto text = [](int mbps) { return mbps > 0 ? std::to_string(mbps) + " Mb/s" : std::string("unknown"); };
  const int want = ctx.plan.hardware.rail_speed_mbps;
  if (!nic->bonded()) {
    if (nic->speed_mbps >= want) pass(r, text(nic->speed_mbps));
    else
      fail(r, text(nic->speed_mbps), "link negotiated below the rail speed: check the cable and the switch port speed");
    return;
  }
  // The rail speed is a port's: every port of a bond must reach it (the bond's own figure is
  // their sum, which one fast port and one slow one could make look right).
  std::vector<std::string> each, slow;
  for (const auto& p : nic->bond_ports) {
    each.push_back(p.ifname + " " + text(p.speed_mbps));
    if (p.speed_mbps < want) slow.push_back(p.ifname);
  }
  if (slow.empty()) pass(r, join(each, ", "));
  else fail(r, join(each, ", "), join(slow, ", ") + " below the rail speed: check the cable and the switch port speed");
}

void rdma_port(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const RdmaDevice* dev = rail_rdma_device(ctx.now, rail);
  if (!dev) {
    fail(r, "no RDMA device", "no RDMA device serves " + rail.ifname);
    return;
  }
  const RdmaPort* port = dev->port(rail.rdma_port);
  std::string obs = dev->name + " port " + std::to_string(rail.rdma_port) + " " + (port ? port->state : "absent");
  if (port && port->state == "ACTIVE") pass(r, obs);
  else fail(r, obs);
}

void roce_v2_gid(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const RdmaDevice* dev = rail_rdma_device(ctx.now, rail);
  if (!dev) {
    fail(r, "no RDMA device", "no RDMA device serves " + rail.ifname);
    return;
  }
  auto index = roce_v2_gid_index(*dev, rail.rdma_port, rail.netdev, false);
  if (!index) {
    fail(r, "none", "no RoCE v2 IPv4 GID on " + rail.netdev + ": the address is missing or on another device");
    return;
  }
  std::string obs = "index " + std::to_string(*index) + " on " + rail.netdev;
  // Would NCCL use it? Unpinned, NCCL takes the port's lowest IPv4 RoCE v2 GID, whatever its
  // interface. nccl.conf pins one index when every rail has the same (settled_plan's view:
  // the GIDs as discovered now).
  const Gid* nccl = nccl_default_gid(*dev, rail.rdma_port);
  if (!nccl || nccl->index == *index) return pass(r, obs);
  Plan now = ctx.plan;
  for (auto& pr : now.rails) {
    const RdmaDevice* d = rail_rdma_device(ctx.now, pr);
    pr.roce_v2_gid_index = d ? roce_v2_gid_index(*d, pr.rdma_port, pr.netdev, false) : std::nullopt;
  }
  std::string other = "index " + std::to_string(nccl->index) + " on " + nccl->ndev;
  if (pinned_gid_index(now) == *index) return pass(r, obs, "nccl.conf pins it; unpinned, NCCL would take " + other);
  fail(r, obs + "; NCCL would take " + other,
       nccl->ndev +
           " carries an IPv4 address outside the plan, and the rails' GID indices differ, so nccl.conf "
           "cannot pin one: NCCL would address this rail by " +
           nccl->ndev +
           "'s GID (jobs that read gpuN.env are pinned; "
           "others are not). Remove the address from " +
           nccl->ndev + ", or make the rails' GID indices equal");
}

}  // namespace railyard::checks
