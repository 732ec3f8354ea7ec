// ACS on the PCIe switch ports between a GPU and its NIC: with P2P request redirect on,
// GPUDirect traffic detours through the root complex. ACS is PCIe extended capability
// 0x0D; its 16-bit control register sits at capability + 6 (FABRIC.md).
#include <optional>

#include "apply.h"
#include "text.h"

namespace railyard {

namespace {

constexpr std::uint16_t kAcsCapability = 0x0d;

std::uint32_t u32_at(const std::vector<std::uint8_t>& c, std::size_t at) {
  return c[at] | (c[at + 1] << 8) | (c[at + 2] << 16) | (static_cast<std::uint32_t>(c[at + 3]) << 24);
}

// Offset of the ACS extended capability, walking the list from 0x100.
std::optional<std::uint32_t> find_acs(const std::vector<std::uint8_t>& config) {
  std::uint32_t at = 0x100;
  for (int guard = 0; guard < 64 && at >= 0x100 && at + 8 <= config.size(); ++guard) {
    std::uint32_t header = u32_at(config, at);
    if (header == 0 || header == 0xffffffff) return std::nullopt;
    if ((header & 0xffff) == kAcsCapability) return at;
    at = (header >> 20) & 0xffc;
  }
  return std::nullopt;
}

}  // namespace

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
    auto cap = find_acs(*config.value);
    if (!cap) {
      out.push_back({object, Outcome::unchanged, "no ACS capability", "0x0000", "nothing redirects P2P at this port"});
      continue;
    }
    std::uint32_t ctrl_at = *cap + 6;
    auto ctrl = static_cast<std::uint16_t>((*config.value)[ctrl_at] | ((*config.value)[ctrl_at + 1] << 8));
    if (ctrl == 0) {
      out.push_back({object, Outcome::unchanged, "0x0000", "0x0000", ""});
      continue;
    }
    out.push_back(change_from(object, k.host.write_pci_config_u16(bdf, ctrl_at, 0), hex(ctrl, 4), "0x0000"));
  }
}

}  // namespace railyard
