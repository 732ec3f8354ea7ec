// The NCCL profile of a node: nccl.conf, the topology XML and per-GPU env files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory.h"
#include "plan.h"
#include "recipe.h"

namespace railyard {

std::string nccl_conf(const Recipe& r, const Plan& plan);
// The GID NCCL picks by itself when no index is given (NCCL_IB_ADDR_FAMILY=AF_INET,
// NCCL_IB_ROCE_VERSION_NUM=2): the lowest-index RoCE v2, IPv4-mapped GID of the port,
// whatever its interface. An untagged address on a VLAN rail's parent wins this way.
const Gid* nccl_default_gid(const RdmaDevice& dev, int port);

// The one GID index nccl.conf pins (NCCL_IB_GID_INDEX): when every RDMA rail's RoCE v2 GID
// is known and they are all the same; else none, and NCCL selects per device by itself.
std::optional<int> pinned_gid_index(const Plan& plan);
std::string nccl_topology_xml(const Inventory& inv, const Plan& plan);
// For launchers that run one process per GPU: that GPU's rail only.
std::string nccl_gpu_env(const Inventory& inv, const Plan& plan, std::size_t gpu);

// All of the above as files at the recipe's paths (per-GPU files only when there are GPUs).
std::vector<PlannedFile> nccl_files(const Inventory& inv, const Recipe& r, const Plan& plan);

}  // namespace railyard
