// NVMe over Fabrics connections: what nvme-cli's `connect` writes to /dev/nvme-fabrics.
#pragma once

#include <string>

#include "outcome.h"

namespace railyard {

class NvmeFabrics {
 public:
  virtual ~NvmeFabrics() = default;
  // One write of the options; returns the reply ("instance=N,cntlid=M").
  virtual Outcome<std::string> nvme_fabrics_connect(const std::string& options) = 0;
};

}  // namespace railyard
