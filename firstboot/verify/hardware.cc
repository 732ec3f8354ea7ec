// Checks read from the inventory discovered after apply (and PCI config for ACS).
#include <algorithm>

#include "checks.h"
#include "pci_capability.h"
#include "text.h"

namespace railyard::checks {

namespace {

std::string link_text(const PciFunction& p) {
  return p.current_link_speed + " x" + std::to_string(p.current_link_width);
}

// A PCIe link at least as planned; below its own maximum (downtrained) is a warning.
void pcie_link(const Recipe& recipe, const PciFunction& p, CheckResult& r) {
  int gen = pcie_generation(p.current_link_speed);
  bool below = (recipe.hardware.pcie_gen > 0 && gen < recipe.hardware.pcie_gen) ||
               (recipe.hardware.pcie_width > 0 && p.current_link_width < recipe.hardware.pcie_width);
  bool downtrained = gen < pcie_generation(p.max_link_speed) || p.current_link_width < p.max_link_width;
  std::string detail = downtrained ? "downtrained: the device can do " + p.max_link_speed + " x" +
                                         std::to_string(p.max_link_width) + " (reseat the card or riser, check the slot)"
                                   : "";
  if (below) fail(r, link_text(p), detail);
  else if (downtrained) {
    r.status = CheckStatus::warn;
    r.observed = link_text(p);
    r.detail = detail;
  } else pass(r, link_text(p));
}

const Nic* nic_of(const VerifyContext& ctx, const RailPlan& rail) { return ctx.now.nic(rail.ifname); }

const RdmaDevice* rdma_of(const VerifyContext& ctx, const RailPlan& rail) {
  if (const RdmaDevice* d = ctx.now.rdma_device(rail.rdma_device)) return d;
  // A Soft-RoCE device created by apply may have another name than planned: find it by netdev.
  for (const auto& d : ctx.now.rdma)
    if (d.netdev == rail.ifname) return &d;
  return nullptr;
}

bool gpu_check(const VerifyContext& ctx, CheckResult& r) {
  const auto& gpus = ctx.now.gpus;
  if (r.name == "gpu.count") {
    std::string n = std::to_string(gpus.size());
    if (n == r.expected) pass(r, n);
    else fail(r, n, "GPUs missing from the bus (fallen off, or the driver failed to bind): check nvidia-smi and dmesg");
    return true;
  }
  if (r.name == "gpu.model") {
    const auto& ids = ctx.recipe.hardware.gpu_device_ids;
    std::string bad;
    for (const auto& g : gpus)
      if (std::find(ids.begin(), ids.end(), g.pci.device) == ids.end()) bad += (bad.empty() ? "" : ", ") + g.pci.bdf + " is " + g.pci.device;
    if (bad.empty()) pass(r, gpus.empty() ? "no GPU" : "device " + gpus.front().pci.device);
    else fail(r, bad);
    return true;
  }
  if (r.name.rfind("gpu.", 0) == 0 && r.name.size() > 11 && r.name.compare(r.name.size() - 10, 10, ".pcie_link") == 0) {
    std::size_t i = static_cast<std::size_t>(std::atoi(r.name.c_str() + 4));
    // By the address the plan saw: a GPU that fell off must not shift the others' checks.
    const Gpu* gpu = nullptr;
    if (i < ctx.plan.gpus.size())
      for (const auto& g : gpus)
        if (g.pci.bdf == ctx.plan.gpus[i]) gpu = &g;
    if (!gpu) fail(r, "GPU " + (i < ctx.plan.gpus.size() ? ctx.plan.gpus[i] : std::to_string(i)) + " missing");
    else pcie_link(ctx.recipe, gpu->pci, r);
    return true;
  }
  return false;
}

}  // namespace

bool hardware(const VerifyContext& ctx, CheckResult& r) {
  if (gpu_check(ctx, r)) return true;
  if (r.name == "rails.count") {
    int present = 0;
    for (const auto& rail : ctx.plan.rails)
      if (ctx.now.nic(rail.ifname)) ++present;
    std::string n = std::to_string(present);
    if (n == r.expected) pass(r, n);
    else fail(r, n, "rail NICs disappeared after planning");
    return true;
  }
  if (r.name == "gpudirect.peermem") {
    if (ctx.kernel.host.module_loaded("nvidia_peermem")) pass(r, "loaded");
    else fail(r, "not loaded", "GPUDirect RDMA falls back to host memory: rebuild nvidia-peermem against the OFED in the image");
    return true;
  }
  if (r.name.rfind("gpudirect.acs.", 0) == 0) {
    std::string bdf = r.name.substr(14);
    auto config = ctx.kernel.host.pci_config(bdf);
    if (!config.ok()) {
      from_status(r, config.status);
      return true;
    }
    const auto& c = *config.value;
    if (c.size() < 0x108) {
      fail(r, "unknown", "only " + std::to_string(c.size()) + " bytes of config space readable: ACS state unknown");
      return true;
    }
    if (auto at = acs_control_offset(c)) {
      std::uint16_t ctrl = config_u16(c, *at);
      if (ctrl == 0) pass(r, "0x0000");
      else fail(r, hex(ctrl, 4), "P2P requests are redirected to the root complex");
      return true;
    }
    pass(r, "no ACS capability");
    return true;
  }
  if (r.name.rfind("nvmeof.", 0) == 0) {
    std::size_t i = static_cast<std::size_t>(std::atoi(r.name.c_str() + 7));
    if (i >= ctx.plan.nvmeof.size()) return false;
    const auto& want = ctx.plan.nvmeof[i];
    std::string transport = want.transport == NvmeTransport::rdma ? "rdma" : "tcp";
    const NvmeController* found = nullptr;
    for (const auto& c : ctx.now.nvme)
      if (c.subsysnqn == want.nqn && c.address.find("traddr=" + want.address + ",") != std::string::npos) found = &c;
    bool connected = r.name.size() > 10 && r.name.compare(r.name.size() - 10, 10, ".connected") == 0;
    if (!found) {
      fail(r, "no controller", "not connected to " + want.address + ":" + std::to_string(want.port) +
                                   ": target down, no route over rail " + std::to_string(want.rail) + ", or host NQN not allowed");
      return true;
    }
    if (connected) {
      std::string obs = found->name + " " + found->state + " over " + found->transport;
      if (found->state == "live" && found->transport == transport) pass(r, obs);
      else fail(r, obs);
      return true;
    }
    // namespace_read: the first namespace's first 4 KiB.
    auto ns = ctx.kernel.host.read_block("/dev/" + found->name + "n1", 4096);
    if (ns.ok()) pass(r, "/dev/" + found->name + "n1: " + std::to_string(*ns.value) + " bytes read");
    else fail(r, "unreadable", ns.status.message + " (the controller is up but exposes no readable namespace)");
    return true;
  }
  auto rc = rail_check(ctx.plan, r.name);
  if (!rc.rail) return false;
  const RailPlan& rail = *rc.rail;
  const Nic* nic = nic_of(ctx, rail);
  if (rc.what == "affinity") {
    std::string obs = rail.affinity ? to_string(*rail.affinity) : "-";
    if (rail.affinity && *rail.affinity > ctx.recipe.hardware.max_affinity)
      fail(r, obs, "the GPU and its rail NIC are far apart: check the riser/slot population against the vendor's layout");
    else pass(r, obs);
    return true;
  }
  if (rc.what == "pcie_link" || rc.what == "link" || rc.what == "speed") {
    if (!nic) {
      fail(r, "absent", rail.ifname + " is gone");
      return true;
    }
    if (rc.what == "pcie_link") pcie_link(ctx.recipe, nic->pci, r);
    else if (rc.what == "link") {
      if (nic->operstate == "up") pass(r, "up");
      else fail(r, nic->operstate, "no carrier: check the cable, the transceiver and the switch port");
    } else {
      std::string obs = nic->speed_mbps > 0 ? std::to_string(nic->speed_mbps) + " Mb/s" : "unknown";
      if (nic->speed_mbps >= ctx.recipe.hardware.rail_speed_mbps) pass(r, obs);
      else fail(r, obs, "link negotiated below the rail speed: check the cable and the switch port speed");
    }
    return true;
  }
  if (rc.what == "rdma_port" || rc.what == "roce_v2_gid") {
    const RdmaDevice* dev = rdma_of(ctx, rail);
    if (!dev) {
      fail(r, "no RDMA device", "no RDMA device serves " + rail.ifname);
      return true;
    }
    const RdmaPort* port = dev->port(rail.rdma_port);
    if (rc.what == "rdma_port") {
      std::string obs = dev->name + " port " + std::to_string(rail.rdma_port) + " " + (port ? port->state : "absent");
      if (port && port->state == "ACTIVE") pass(r, obs);
      else fail(r, obs);
    } else {
      auto index = roce_v2_gid_index(*dev, rail.rdma_port, rail.netdev, false);
      if (index) pass(r, "index " + std::to_string(*index) + " on " + rail.netdev);
      else fail(r, "none", "no RoCE v2 IPv4 GID on " + rail.netdev + ": the address is missing or on another device");
    }
    return true;
  }
  return false;
}

}  // namespace railyard::checks
