// The real Host: one native implementation of each of the host's interfaces.
#pragma once

#include <string>

#include "kernel/files_native.h"
#include "kernel/host.h"
#include "kernel/icmp_native.h"
#include "kernel/modules_native.h"
#include "kernel/nvme_fabrics_native.h"
#include "kernel/pci_config_native.h"
#include "kernel/rdma_links_native.h"

namespace railyard {

struct NativeHost {
  // Files outside /proc, /sys and /dev are written under `root` (the agent's --root).
  explicit NativeHost(std::string root = "/") : files(std::move(root)) {}
  NativeHost(const NativeHost&) = delete;
  NativeHost& operator=(const NativeHost&) = delete;
  operator Host() { return {files, modules, rdma_links, pci, nvme_fabrics, icmp}; }

  NativeFiles files;
  NativeModules modules;
  NativeRdmaLinks rdma_links;
  NativePciConfig pci;
  NativeNvmeFabrics nvme_fabrics;
  NativeIcmp icmp;
};

}  // namespace railyard
