// The NCCL profile of a node: nccl.conf, the topology XML and per-GPU env files.
#pragma once

#include <string>
#include <vector>

#include "inventory.h"
#include "plan.h"
#include "recipe.h"

namespace railyard {

std::string nccl_conf(const Recipe& r, const Plan& plan);
std::string nccl_topology_xml(const Inventory& inv, const Plan& plan);
// For launchers that run one process per GPU: that GPU's rail only.
std::string nccl_gpu_env(const Inventory& inv, const Plan& plan, std::size_t gpu);

// All of the above as files at the recipe's paths (per-GPU files only when there are GPUs).
std::vector<PlannedFile> nccl_files(const Inventory& inv, const Recipe& r, const Plan& plan);

}  // namespace railyard
