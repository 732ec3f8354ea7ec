// The NVMe over Fabrics target (nvmet) through configfs: a subsystem open to any host, one
// namespace on a block device, a port listening on the storage rail's address, and the
// link that makes the port serve the subsystem. Reads first, changes only the difference.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "configfs.h"

namespace railyard {

inline constexpr const char* kNvmetRoot = "/sys/kernel/config/nvmet";

struct NvmetExport {
  std::string nqn;
  std::string transport = "rdma";  // nvmet's addr_trtype: rdma or tcp
  std::string address;             // IPv4 the port listens on
  int port = 4420;
  std::string device;  // the namespace's block device
};

void apply_nvmet_export(const NvmetExport& e, const Configfs& cfs, std::vector<Change>& out);

}  // namespace railyard
