// PCIe extended capabilities in a function's config space: where ACS control lives.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace railyard {

// Offset of the ACS control register (ACS capability 0x0D + 6), walking the extended
// capability list from 0x100; nothing when the function has no ACS.
std::optional<std::uint32_t> acs_control_offset(const std::vector<std::uint8_t>& config);

// The 16-bit little-endian value at `offset`.
std::uint16_t config_u16(const std::vector<std::uint8_t>& config, std::uint32_t offset);

}  // namespace railyard
