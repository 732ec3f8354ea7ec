// The node's kernel surface beyond netlink's links, routes and DCB, as one narrow interface
// per thing it touches. A Host names one implementation of each; a Kernel carries a Host.
#pragma once

#include "kernel/files.h"
#include "kernel/icmp.h"
#include "kernel/modules.h"
#include "kernel/nvme_fabrics.h"
#include "kernel/pci_config.h"
#include "kernel/rdma_links.h"

namespace railyard {

struct Host {
  Files& files;
  Modules& modules;
  RdmaLinks& rdma_links;
  PciConfig& pci;
  NvmeFabrics& nvme_fabrics;
  Icmp& icmp;
};

}  // namespace railyard
