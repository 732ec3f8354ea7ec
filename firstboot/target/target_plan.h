// The storage-target role of a lab VM: what it takes to serve the recipe's [[nvmeof]]
// targets to the nodes. The storage rails are planned exactly as a node's rails would be
// (Soft-RoCE, VLAN, MTU, sysctls), with the target's address instead of a node's; then
// nvmet exports one namespace per target on that address.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory.h"
#include "node_inventory.h"
#include "nvmet.h"
#include "plan.h"
#include "recipe.h"

namespace railyard {

// The block device every lab export serves: null_blk's first device (reads return zeros).
inline constexpr const char* kTargetDevice = "/dev/nullb0";

struct TargetPlan {
  Plan rails;  // the storage rails only, with the modules they and nvmet need
  std::vector<NvmetExport> exports;
  std::vector<std::string> problems;  // nothing is applied when there is one
  bool ok() const { return problems.empty(); }
};

// What of the recipe's hardware a storage target needs: NICs for its storage rails (rail 0
// up to the last [[nvmeof]] rail), no GPUs.
HardwareSpec target_hardware(const Recipe& recipe);

// Pure. `node` (the VM's identity, optional) names the plan; when it is a reference
// ([fabric.probe]) on layer-2 rails, its other rails' addresses go on the storage NIC.
TargetPlan plan_target(const Inventory& inv, const Recipe& recipe, const std::optional<NodeEntry>& node);

}  // namespace railyard
