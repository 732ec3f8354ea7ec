// NVMe-oF connections through /dev/nvme-fabrics.
#pragma once

#include "kernel/nvme_fabrics.h"

namespace railyard {

class NativeNvmeFabrics : public NvmeFabrics {
 public:
  Outcome<std::string> nvme_fabrics_connect(const std::string& options) override;
};

}  // namespace railyard
