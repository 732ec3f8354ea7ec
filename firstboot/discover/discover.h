// Discovery: the node's GPUs, NICs, RDMA devices, NVMe controllers and NUMA nodes, read
// from sysfs only, through calls umockdev redirects (open, opendir, readlink), so that
// fixtures stand in for real servers. Read-only.
#pragma once

#include "inventory.h"

namespace railyard {

// Never fails: what cannot be read is left out, and verify says so.
Inventory discover();

}  // namespace railyard
