#include "discover/device_wait.h"

#include <libudev.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include <spdlog/spdlog.h>

#include "discover/discover.h"
#include "rails.h"
#include "text.h"

namespace railyard {

namespace {

using Steady = std::chrono::steady_clock;

struct UdevFree {
  void operator()(udev* u) const { udev_unref(u); }
  void operator()(udev_monitor* m) const { udev_monitor_unref(m); }
  void operator()(udev_enumerate* e) const { udev_enumerate_unref(e); }
  void operator()(udev_device* d) const { udev_device_unref(d); }
  void operator()(udev_queue* q) const { udev_queue_unref(q); }
};
template <typename T>
using UdevPtr = std::unique_ptr<T, UdevFree>;

constexpr const char* kSubsystems[] = {"net", "infiniband", "pci"};
constexpr std::chrono::milliseconds kRenameBound{60000};

// udev runs here and its database describes these devices.
bool udev_running() { return ::access("/run/udev/control", F_OK) == 0 && !std::getenv("UMOCKDEV_DIR"); }

NetState net_state(udev* u) {
  NetState out;
  UdevPtr<udev_enumerate> e(udev_enumerate_new(u));
  if (!e || udev_enumerate_add_match_subsystem(e.get(), "net") < 0 || udev_enumerate_scan_devices(e.get()) < 0)
    return out;
  udev_list_entry* entry = nullptr;
  udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e.get())) {
    UdevPtr<udev_device> d(udev_device_new_from_syspath(u, udev_list_entry_get_name(entry)));
    if (!d) continue;
    const std::string name = udev_device_get_sysname(d.get());
    if (udev_device_get_is_initialized(d.get()) <= 0) {
      out.pending.insert(name);
      continue;
    }
    out.initialized.insert(name);
    const char* renaming = udev_device_get_property_value(d.get(), "ID_RENAMING");
    if (renaming && std::string(renaming) == "1") out.renaming.insert(name);
    if (const char* chosen = udev_device_get_property_value(d.get(), "ID_NET_NAME")) out.chosen[name] = chosen;
  }
  return out;
}

// How the kernel named the interface (/sys/class/net/NAME/name_assign_type); -1 when unknown.
int name_assign_type(const std::string& ifname) {
  std::ifstream in("/sys/class/net/" + ifname + "/name_assign_type");
  int v = -1;
  if (!(in >> v)) return -1;
  return v;
}

// The interface is a PCI function's (its device is on the PCI bus).
bool has_pci_device(const std::string& ifname) {
  std::error_code ec;
  auto target = std::filesystem::read_symlink("/sys/class/net/" + ifname + "/device/subsystem", ec);
  return !ec && target.filename() == "pci";
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000.0);
  return buf;
}

}  // namespace

std::vector<std::string> unnamed_interfaces(const NetState& net, const std::vector<PresentNic>& present,
                                            bool udev_busy) {
  std::vector<std::string> out;
  std::set<std::string> named_for_good;  // final names, whatever udev's database says
  for (const auto& nic : present)
    if (!nic.pci && (nic.name_assign_type == kNetNameUser || nic.name_assign_type == kNetNamePredictable))
      named_for_good.insert(nic.ifname);
  for (const auto& name : net.pending)
    if (!named_for_good.count(name)) out.push_back("net " + name + " not yet initialized by udev");
  for (const auto& nic : present) {
    const std::string& n = nic.ifname;
    if (net.pending.count(n) || named_for_good.count(n)) continue;
    if (!net.initialized.count(n)) {
      out.push_back("net " + n + " not yet initialized (renamed) by udev");
    } else if (net.renaming.count(n)) {
      auto c = net.chosen.find(n);
      const bool renamed = nic.name_assign_type == kNetNameRenamed && (c == net.chosen.end() || c->second == n);
      if (!renamed) out.push_back("net " + n + " being renamed by udev");
    } else if (udev_busy && nic.name_assign_type == kNetNameEnum) {
      // A database entry for an interface under the kernel's name, with udev's events still
      // queued: the "add" that renames it may be among them. Once udev is idle, a name it did
      // not change is final (net.ifnames=0, a .link file without a name policy, an
      // interface already up when udev came).
      auto c = net.chosen.find(n);
      const bool other = c != net.chosen.end() && c->second != n;
      if (nic.pci || other)
        out.push_back("net " + n + " still has the kernel's name while udev has events queued" +
                      (other ? "; udev names it " + c->second : ""));
    }
  }
  return out;
}

DeviceWait wait_for_devices(const Recipe& recipe, const std::function<void(Inventory&)>& mark,
                            std::chrono::milliseconds bound) {
  DeviceWait out;
  out.bound_s = static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(bound).count());
  out.udev = udev_running();
  // Renames always complete (udev handles every event), and a plan made before one names an
  // interface that is about to go: past the bound for missing hardware, the wait goes on for
  // udev to finish with the interfaces present, up to kRenameBound.
  const auto start = Steady::now(), deadline = start + bound;
  const auto rename_deadline = start + std::max<std::chrono::milliseconds>(bound, kRenameBound);
  UdevPtr<udev> u(udev_new());
  UdevPtr<udev_queue> queue(out.udev && u ? udev_queue_new(u.get()) : nullptr);
  // Listening before the first look: an event between the look and the wait is not lost.
  UdevPtr<udev_monitor> monitor(u ? udev_monitor_new_from_netlink(u.get(), "udev") : nullptr);
  if (monitor) {
    for (const char* s : kSubsystems) udev_monitor_filter_add_match_subsystem_devtype(monitor.get(), s, nullptr);
    if (udev_monitor_enable_receiving(monitor.get()) < 0) monitor.reset();
  }
  for (;;) {
    // udev first, then sysfs: an interface udev renames between the two looks is then a name
    // udev had not finished with, never a stale one taken for final.
    NetState net;
    if (out.udev && u) net = net_state(u.get());
    out.inventory = discover();
    if (mark) mark(out.inventory);
    out.missing = missing_hardware(out.inventory, recipe.hardware, recipe.fabric.soft_roce);
    const std::size_t hardware_missing = out.missing.size();
    if (out.udev && u) {
      // libudev's enumeration usually leaves out interfaces udev has not initialized: one that
      // sysfs shows and udev does not list as finished is one udev has not renamed yet.
      std::vector<PresentNic> present;
      std::set<std::string> listed;
      for (const auto& nic : out.inventory.nics) {
        present.push_back({nic.ifname, !nic.pci.bdf.empty(), name_assign_type(nic.ifname)});
        listed.insert(nic.ifname);
      }
      // Interfaces udev lists that discovery leaves out (bridges): how they were named.
      for (const auto& name : net.pending)
        if (!listed.count(name)) present.push_back({name, has_pci_device(name), name_assign_type(name)});
      const bool busy = queue && !udev_queue_get_queue_is_empty(queue.get());
      for (auto& why : unnamed_interfaces(net, present, busy)) out.missing.push_back(std::move(why));
    }
    // Still renaming, or udev still working through events (coldplug loading the drivers
    // whose devices are not there yet): a device missing now may yet come.
    const bool renaming =
        out.missing.size() > hardware_missing || (queue && !udev_queue_get_queue_is_empty(queue.get()));
    const auto now = Steady::now();
    if (out.missing.empty()) break;
    out.last_waited_for = out.missing;
    out.last_waited_at_ms = std::chrono::duration<double, std::milli>(now - start).count();
    if (now >= deadline && (!renaming || now >= rename_deadline)) break;
    spdlog::debug("waiting for devices: {}", join(out.missing, "; "));
    // Sleep until udev announces a device, and look again at least every second (a device
    // may complete without an event of the subsystems watched, e.g. a driver's late bind).
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>((now < deadline ? deadline : rename_deadline) - now);
    int timeout = static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), 1000));
    if (monitor) {
      pollfd p{udev_monitor_get_fd(monitor.get()), POLLIN, 0};
      if (::poll(&p, 1, timeout) > 0)
        while (UdevPtr<udev_device> d{udev_monitor_receive_device(monitor.get())}) {
          const char* action = udev_device_get_action(d.get());
          const char* name = udev_device_get_sysname(d.get());
          spdlog::debug("udev: {} {}", action ? action : "?", name ? name : "?");
        }
    } else {
      ::usleep(static_cast<useconds_t>(std::min(timeout, 250)) * 1000);
    }
  }
  out.waited_ms = std::chrono::duration<double, std::milli>(Steady::now() - start).count();
  spdlog::debug("devices: {} after {:.0f} ms", out.missing.empty() ? "all present" : join(out.missing, "; "),
                out.waited_ms);
  return out;
}

CheckResult devices_check(const DeviceWait& wait, const HardwareSpec& hw) {
  CheckResult r;
  r.id = CheckId::node(CheckKind::devices_ready);
  std::vector<std::string> want;
  if (hw.gpu_count > 0) want.push_back(plural(static_cast<std::size_t>(hw.gpu_count), "GPU"));
  if (!hw.rails.empty()) want.push_back("rail NICs " + join(hw.rails, ", "));
  else if (hw.rail_count > 0) want.push_back(plural(static_cast<std::size_t>(hw.rail_count), "rail NIC"));
  r.expected = (want.empty() ? std::string("the devices present") : join(want, " and ")) +
               (wait.udev ? ", initialized by udev," : "") + " within " + std::to_string(wait.bound_s) + " s";
  std::vector<std::string> rails;
  for (std::size_t n : rail_candidates(wait.inventory, false)) rails.push_back(wait.inventory.nics[n].ifname);
  r.observed = plural(wait.inventory.gpus.size(), "GPU") + ", " + plural(rails.size(), "RDMA NIC") +
               (rails.empty() ? "" : " (" + join(rails, " ") + ")") + " after " + seconds(wait.waited_ms);
  const std::string udev_note = wait.udev ? "" : "udev is not running here: devices counted as present";
  if (wait.complete()) {
    r.status = CheckStatus::pass;
    r.detail = udev_note;
    // Why first boot waited, for whoever reads a slow boot: what was still missing at the
    // last look before everything was there.
    if (!wait.last_waited_for.empty())
      r.detail += std::string(r.detail.empty() ? "" : "; ") + "at " + seconds(wait.last_waited_at_ms) +
                  " still waiting for " + join(wait.last_waited_for, "; ");
  } else {
    r.status = CheckStatus::fail;
    r.detail = "still missing at the bound (selftest.device_wait_s): " + join(wait.missing, "; ") +
               (udev_note.empty() ? "" : "; " + udev_note);
  }
  return r;
}

}  // namespace railyard
