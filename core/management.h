// Which interface is the management one: it is never a rail and never touched.
#pragma once

#include <optional>
#include <string>

#include "inventory.h"
#include "node_inventory.h"
#include "recipe.h"

namespace railyard {

// Marks the management NIC in `inv`: the recipe's match (MAC, name pattern, PCI address),
// else the node identity's MAC, else the interface holding the default route. Returns
// how it was found ("" when nothing matched).
std::string mark_management(Inventory& inv, const ManagementSpec& spec, const std::optional<NodeEntry>& node,
                            const std::optional<std::string>& default_route_ifname);

}  // namespace railyard
