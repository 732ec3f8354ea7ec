// Soft-RoCE devices over RDMA netlink, as `rdma link add` makes them.
#pragma once

#include "kernel/rdma_links.h"

namespace railyard {

class NativeRdmaLinks : public RdmaLinks {
 public:
  Status add_rxe(const std::string& name, const std::string& netdev) override;
};

}  // namespace railyard
