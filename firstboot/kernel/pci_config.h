// PCI configuration space, by the function's address ("0000:3b:00.0").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

class PciConfig {
 public:
  virtual ~PciConfig() = default;
  virtual Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) = 0;
  virtual Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) = 0;
};

}  // namespace railyard
