// ACS on the PCIe switch ports between a GPU and its NIC: with P2P request redirect on,
// GPUDirect traffic detours through the root complex. ACS is PCIe extended capability
// 0x0D; its 16-bit control register sits at capability + 6 (FABRIC.md).
#include "apply.h"
#include "pci_capability.h"
#include "text.h"

namespace railyard {

void apply_acs(const Plan& plan, Kernel& k, std::vector<Change>& out) {
  for (const auto& bdf : plan.acs_disable) {
    std::string object = "PCIe port " + bdf + ": ACS";
    auto config = k.host.pci_config(bdf);
    if (!config.ok()) {
      out.push_back(change_from(object, config.status, "", "0x0000"));
      continue;
    }
    if (config.value->size() < 0x108) {
      out.push_back({object, Outcome::failed, "", "0x0000",
                     "only " + std::to_string(config.value->size()) + " bytes of config space readable (needs root)"});
      continue;
    }
    auto ctrl_at = acs_control_offset(*config.value);
    if (!ctrl_at) {
      out.push_back({object, Outcome::unchanged, "no ACS capability", "0x0000", "nothing redirects P2P at this port"});
      continue;
    }
    std::uint16_t ctrl = config_u16(*config.value, *ctrl_at);
    if (ctrl == 0) {
      out.push_back({object, Outcome::unchanged, "0x0000", "0x0000", ""});
      continue;
    }
    out.push_back(change_from(object, k.host.write_pci_config_u16(bdf, *ctrl_at, 0), hex(ctrl, 4), "0x0000"));
  }
}

}  // namespace railyard
