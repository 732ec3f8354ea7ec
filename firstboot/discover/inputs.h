// What every agent command starts from: the recipe, the node identity and the hardware.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "discover/device_wait.h"
#include "exit_code.h"
#include "inventory.h"
#include "node_inventory.h"
#include "recipe.h"

namespace railyard {

struct InputPaths {
  std::string recipe = "/etc/railyard/recipe.toml";
  std::string node = "/etc/railyard/node.toml";
  bool recipe_given = false;  // an explicit --recipe must exist; the default may be absent
};

struct Inputs {
  Recipe recipe;
  bool recipe_found = false;
  std::optional<NodeEntry> node;
  Inventory inventory;
  std::string management_how;      // how the management interface was recognised
  std::optional<DeviceWait> wait;  // when the devices were waited for
};

// Loads the recipe and node identity (errors printed, exit code kExitBadInput returned
// through `exit_code`), discovers the hardware and marks the management interface. With
// `wait_devices`, discovery waits first for what the recipe's hardware needs
// (selftest.device_wait_s; wait_for_devices()).
// `needs` (when given) says what of the recipe's hardware this command waits for: the lab's
// storage target needs its storage rails only.
// `before_wait`, when given, is called with the recipe just before the wait for devices
// (first boot starts loading its modules there: ModulePreload).
std::optional<Inputs> load_inputs(const InputPaths& paths, int& exit_code, bool wait_devices = false,
                                  HardwareSpec (*needs)(const Recipe&) = nullptr,
                                  const std::function<void(const Recipe&)>& before_wait = {});

}  // namespace railyard
