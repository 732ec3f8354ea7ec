// Soft-RoCE (rxe) devices for lab rails, over RDMA netlink; rail.N.rdma_port checks them.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"

namespace railyard {

void apply_soft_roce(const Plan&, Kernel&, std::vector<Change>&);

}  // namespace railyard
