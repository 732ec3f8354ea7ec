// ACS on the PCIe switch ports between a GPU and its NIC: with P2P request redirect on,
// GPUDirect traffic detours through the root complex. ACS is PCIe extended capability
// 0x0D; its 16-bit control register sits at capability + 6 (docs/fabric.md).
#include "objects/acs.h"

#include "kernel/pci_capability.h"
#include "text.h"
#include "objects/result.h"

namespace railyard {

namespace {

// Extended capabilities start at 0x100: without root, sysfs gives only the first 64 bytes.
constexpr std::size_t kExtendedConfigBytes = 0x108;

std::string short_config(std::size_t size) {
  return "only " + std::to_string(size) + " bytes of config space readable";
}

}  // namespace

void apply_acs(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& bdf : plan.acs_disable) {
    std::string object = "PCIe port " + bdf + ": ACS";
    auto config = k.host.pci.pci_config(bdf);
    if (!config.ok()) {
      out.push_back(change_from(object, config.status(), "", "0x0000"));
      continue;
    }
    if (config->size() < kExtendedConfigBytes) {
      out.push_back({object, ChangeOutcome::failed, "", "0x0000", short_config(config->size()) + " (needs root)"});
      continue;
    }
    auto ctrl_at = acs_control_offset(*config);
    if (!ctrl_at) {
      out.push_back(
          {object, ChangeOutcome::unchanged, "no ACS capability", "0x0000", "nothing redirects P2P at this port"});
      continue;
    }
    std::uint16_t ctrl = config_u16(*config, *ctrl_at);
    if (ctrl == 0) {
      out.push_back({object, ChangeOutcome::unchanged, "0x0000", "0x0000", ""});
      continue;
    }
    out.push_back(change_from(object, k.host.pci.write_pci_config_u16(bdf, *ctrl_at, 0), hex(ctrl, 4), "0x0000"));
  }
}

void verify_acs(const VerifyContext& ctx, const std::string& bdf, CheckResult& r) {
  auto config = ctx.kernel.host.pci.pci_config(bdf);
  if (!config.ok()) {
    checks::from_status(r, config.status());
    return;
  }
  const auto& c = *config;
  if (c.size() < kExtendedConfigBytes) {
    checks::fail(r, "unknown", short_config(c.size()) + ": ACS state unknown");
    return;
  }
  auto at = acs_control_offset(c);
  if (!at) {
    checks::pass(r, "no ACS capability");
    return;
  }
  std::uint16_t ctrl = config_u16(c, *at);
  if (ctrl == 0) checks::pass(r, "0x0000");
  else checks::fail(r, hex(ctrl, 4), "P2P requests are redirected to the root complex");
}

}  // namespace railyard
