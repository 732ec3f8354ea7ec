// The inventory for people: a GPU × NIC affinity matrix like `nvidia-smi topo -m`, then rails.
#pragma once

#include <string>

#include "inventory.h"
#include "rails.h"

namespace railyard {

std::string inventory_table(const Inventory& inv, const RailMap& rails);

}  // namespace railyard
