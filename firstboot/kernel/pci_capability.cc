#include "kernel/pci_capability.h"

namespace railyard {

namespace {

constexpr std::uint16_t kAcsCapability = 0x0d;

std::uint32_t u32_at(const std::vector<std::uint8_t>& c, std::size_t at) {
  return c[at] | (c[at + 1] << 8) | (c[at + 2] << 16) | (static_cast<std::uint32_t>(c[at + 3]) << 24);
}

}  // namespace

std::optional<std::uint32_t> acs_control_offset(const std::vector<std::uint8_t>& config) {
  std::uint32_t at = 0x100;
  for (int guard = 0; guard < 64 && at >= 0x100 && at + 8 <= config.size(); ++guard) {
    std::uint32_t header = u32_at(config, at);
    if (header == 0 || header == 0xffffffff) return std::nullopt;
    if ((header & 0xffff) == kAcsCapability) return at + 6;
    at = (header >> 20) & 0xffc;
  }
  return std::nullopt;
}

std::uint16_t config_u16(const std::vector<std::uint8_t>& config, std::uint32_t offset) {
  return static_cast<std::uint16_t>(config[offset] | (config[offset + 1] << 8));
}

}  // namespace railyard
