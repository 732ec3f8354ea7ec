// RDMA links the agent creates: Soft-RoCE (rxe) devices over a netdev, for the lab.
#pragma once

#include <string>

#include "outcome.h"

namespace railyard {

class RdmaLinks {
 public:
  virtual ~RdmaLinks() = default;
  virtual Status add_rxe(const std::string& name, const std::string& netdev) = 0;
};

}  // namespace railyard
