// First boot's wait for its devices: until every GPU and rail NIC the recipe's hardware
// section needs is present and udev has initialized it (so interfaces carry their final
// names), bounded by selftest.device_wait_s. It replaces ordering after the deprecated
// systemd-udev-settle, which waits for every device of the machine, needed or not.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "inventory.h"
#include "recipe.h"
#include "report.h"

namespace railyard {

struct DeviceWait {
  Inventory inventory;                       // discovered when everything was there, or at the bound
  std::vector<std::string> missing;          // what was still missing then; empty: complete
  std::vector<std::string> last_waited_for;  // what the last look before the end found missing
  double last_waited_at_ms = 0;              // when that look was
  bool udev = false;                         // udev's initialization was known (false: udev is not running here)
  double waited_ms = 0;
  int bound_s = 0;
  bool complete() const { return missing.empty(); }
};

// What udev knows of the interfaces present (its database, by name).
struct NetState {
  std::set<std::string> initialized;          // a database entry: udev processed an event
  std::set<std::string> pending;              // listed, but no entry yet
  std::set<std::string> renaming;             // ID_RENAMING=1: udev is renaming it now
  std::map<std::string, std::string> chosen;  // ID_NET_NAME: the name udev's link config gave it
};

// An interface present, as sysfs has it.
struct PresentNic {
  std::string ifname;
  bool pci = false;           // a PCI function's (udev names those by their place on the bus)
  int name_assign_type = -1;  // the kernel's name_assign_type (kNetNameEnum: eth%d); -1 unknown
};
inline constexpr int kNetNameEnum = 1;         // NET_NAME_ENUM, linux/netdevice.h
inline constexpr int kNetNamePredictable = 2;  // NET_NAME_PREDICTABLE: the kernel's own stable name (lo)
inline constexpr int kNetNameUser = 3;         // NET_NAME_USER: named by whoever created it (ip link add)
inline constexpr int kNetNameRenamed = 4;      // NET_NAME_RENAMED: renamed from user space (udev)

// The interfaces whose names are not final yet, each with why: udev has no database entry
// for it or is renaming it, or (while udev still has events queued) a PCI NIC still carries
// the name the kernel enumerated. udev marks an entry ID_RENAMING before it renames and
// clears the mark only when it processes the "move" the rename raised, which queues behind
// every coldplug event still waiting (7-10 s of a TCG lab boot). An entry so marked whose
// interface the kernel already reports renamed from user space (NET_NAME_RENAMED), under the
// name udev chose, is renamed: the name is final. What udev still does for it is the add's
// RUN (systemd-sysctl with the interface's own keys, of which the image sets none; verify
// checks every key the agent writes) and the "move", which sets no name and runs nothing for
// a network interface. An entry alone does not prove the name final: an event
// udev processed without renaming (anything but an "add") writes one too, and the name
// udev gives comes with the queued "add". An interface that is no PCI function's and was
// named by whoever created it (a bridge, a VLAN, a veth: NET_NAME_USER) or by the kernel
// for good (lo: NET_NAME_PREDICTABLE) is never renamed, and udev's entry for it is not
// waited for (the lab leaf's bridge kept the storage target waiting 14 s under TCG, lo the
// node 5 s).
std::vector<std::string> unnamed_interfaces(const NetState& net, const std::vector<PresentNic>& present,
                                            bool udev_busy);

// Enumerates with libudev (every interface must be initialized: renamed), discovers, compares with what the hardware
// section needs (missing_hardware()), and sleeps on a udev monitor until something changes: one enumeration and one
// discovery when everything is already there. `mark` marks the management interface on each discovered inventory (it is
// never a rail). Where udev is Every interface present must carry its final name (unnamed_interfaces()). Past `bound`
// with hardware still missing, it goes on waiting (up to 60 s from the start) only while udev has not finished renaming
// an interface present or still has events queued (coldplug loading the drivers whose devices are not there yet): the
// plan is never made against a name about to change, and a device is declared missing only once udev is done. Where
// udev is not running (a container, a chroot, a umockdev testbed: UMOCKDEV_DIR set, whose devices the host's udev
// database does not know) initialization is unknown and presence counts.
DeviceWait wait_for_devices(const Recipe& recipe, const std::function<void(Inventory&)>& mark,
                            std::chrono::milliseconds bound);

// The report's devices.ready check: pass when complete, else a failure naming what was
// expected, what appeared and what never came.
CheckResult devices_check(const DeviceWait& wait, const HardwareSpec& hw);

}  // namespace railyard
