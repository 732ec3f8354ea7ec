// PCI configuration space through sysfs.
#pragma once

#include "kernel/pci_config.h"

namespace railyard {

class NativePciConfig : public PciConfig {
 public:
  Outcome<std::vector<std::uint8_t>> pci_config(const std::string& bdf) override;
  Status write_pci_config_u16(const std::string& bdf, std::uint32_t offset, std::uint16_t value) override;
};

}  // namespace railyard
