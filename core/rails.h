// Which NICs are rails, in which order, and which GPUs are pinned to each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory.h"
#include "recipe.h"

namespace railyard {

struct Rail {
  int index = 0;
  std::size_t nic = 0;               // into Inventory::nics
  std::vector<std::size_t> gpus;     // into Inventory::gpus, in bus order
  std::optional<Affinity> affinity;  // worst of its GPU↔NIC pairs; none without GPUs
};

struct RailMap {
  std::vector<Rail> rails;            // rail index order
  std::vector<std::size_t> non_rail;  // RDMA-capable NICs left out (storage, in-band)
  std::vector<std::string> problems;  // the hardware cannot satisfy the recipe
  std::vector<std::string> warnings;  // pairings worse than the recipe allows
};

// Rails follow GPU bus order; each GPU is pinned to its closest NIC (one to one when the
// counts match, k GPUs per NIC when there are fewer NICs); ties break on fewer bridges,
// then on PCI address. Interface names never matter. `soft_roce`: NICs without an RDMA
// device are candidates (their rxe device is created when the plan is applied).
RailMap map_rails(const Inventory& inv, const HardwareSpec& hw, bool soft_roce);

// The NICs that may become rails: not management, on a PCI function, RDMA-capable.
std::vector<std::size_t> rail_candidates(const Inventory& inv, bool soft_roce);

// What the hardware section needs that `inv` does not have yet, one line each: GPUs short
// of gpu_count, a hardware.rails entry not present or without its RDMA device, fewer
// RDMA-capable NICs than rail_count. Empty when everything is there. First boot waits on
// this (selftest.device_wait_s) before it plans.
std::vector<std::string> missing_hardware(const Inventory& inv, const HardwareSpec& hw, bool soft_roce);

nlohmann::ordered_json rails_json(const Inventory& inv, const RailMap& map);

}  // namespace railyard
