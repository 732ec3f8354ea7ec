// First boot's wait for its devices (firstboot/discover/device_wait.cc) against a umockdev
// testbed owned by this process, which runs under libumockdev-preload (tests/CMakeLists.txt):
// the gpu4-cx6dx fixture with rail NIC ens2f0np0 (0000:b2:00.0, mlx5_0) held back, added
// while the agent waits (the testbed sends its uevents), never added, or added first under
// the kernel's name and then renamed.
#include <doctest/doctest.h>

#include <umockdev.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "discover/device_wait.h"
#include "rails.h"
#include "recipe_loader.h"

using namespace railyard;

namespace {

const std::string kFixture = std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/hw/gpu4-cx6dx.umockdev";
const std::string kNic = "/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0/0000:b0:01.0/0000:b2:00.0";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture's paragraphs: all but the held-back NIC's net and RDMA devices, and those two.
struct Split {
  std::string rest, nic;
};
Split split_fixture() {
  Split out;
  std::string text = read(kFixture);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find("\n\n", at);
    std::string para = text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
    at = end == std::string::npos ? text.size() : end + 2;
    bool held = para.rfind("P: " + kNic + "/net/", 0) == 0 || para.rfind("P: " + kNic + "/infiniband/", 0) == 0;
    (held ? out.nic : out.rest) += para + "\n";
  }
  return out;
}

// A testbed for this test case, removed (and UMOCKDEV_DIR unset) at its end.
struct Testbed {
  UMockdevTestbed* bed = umockdev_testbed_new();
  ~Testbed() { g_object_unref(bed); }
  void add(const std::string& text) {
    GError* error = nullptr;
    bool ok = umockdev_testbed_add_from_string(bed, text.c_str(), &error);
    if (!ok) FAIL("umockdev: " << (error ? error->message : "?"));
  }
};

Recipe four_rails() {
  Recipe r = default_recipe();
  r.hardware.gpu_count = 4;
  r.hardware.rail_count = 4;
  return r;
}

int rdma_nics(const Inventory& inv) { return static_cast<int>(rail_candidates(inv, false).size()); }

}  // namespace

TEST_CASE("device wait: everything present is one look, no wait") {
  const char* preload = std::getenv("LD_PRELOAD");
  REQUIRE_MESSAGE((preload && std::string(preload).find("umockdev-preload") != std::string::npos),
                  "run under LD_PRELOAD=libumockdev-preload.so.0 (ctest does)");
  Testbed t;
  t.add(read(kFixture));
  DeviceWait w = wait_for_devices(four_rails(), {}, std::chrono::seconds(10));
  CAPTURE(w.missing.size());
  CHECK(w.complete());
  CHECK_FALSE(w.udev);  // a testbed: initialization is unknown, presence counts
  CHECK(w.waited_ms < 1000);
  CHECK(rdma_nics(w.inventory) == 4);
  CheckResult c = devices_check(w, four_rails().hardware);
  CHECK(c.name() == "devices.ready");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.expected == "4 GPUs and 4 rail NICs within 10 s");
}

TEST_CASE("device wait: a NIC that appears while the agent waits ends the wait when its uevent comes") {
  Split f = split_fixture();
  REQUIRE_FALSE(f.nic.empty());
  Testbed t;
  t.add(f.rest);
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    t.add(f.nic);  // preloaded, the testbed sends "add" for each device
  });
  DeviceWait w = wait_for_devices(four_rails(), {}, std::chrono::seconds(20));
  later.join();
  CHECK(w.complete());
  CHECK(w.waited_ms >= 400);
  // The uevent ends the wait (about 420 ms here); without it the next look is a second later.
  CHECK(w.waited_ms < 950);
  CHECK(rdma_nics(w.inventory) == 4);
  REQUIRE(w.inventory.nic("ens2f0np0"));
  CHECK(w.inventory.nic("ens2f0np0")->rdma_device == "mlx5_0");
  // The pass says what first boot waited for, for whoever reads a slow boot.
  CheckResult c = devices_check(w, four_rails().hardware);
  CAPTURE(c.detail);
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail.find(" still waiting for 4 rail NICs wanted, 3 with an RDMA device") != std::string::npos);
}

TEST_CASE("device wait: a NIC that never appears fails devices.ready after the bound, naming what is there") {
  Split f = split_fixture();
  Testbed t;
  t.add(f.rest);
  DeviceWait w = wait_for_devices(four_rails(), {}, std::chrono::seconds(1));
  CHECK_FALSE(w.complete());
  CHECK(w.waited_ms >= 1000);
  CHECK(w.waited_ms < 5000);
  CheckResult c = devices_check(w, four_rails().hardware);
  CAPTURE(c.observed);
  CAPTURE(c.detail);
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.observed.rfind("4 GPUs, 3 RDMA NICs (ens3f0np0 ens1f0np0 ens4f0np0) after 1.", 0) == 0);
  CHECK(c.detail.find("4 rail NICs wanted, 3 with an RDMA device (ens3f0np0 ens1f0np0 ens4f0np0)") !=
        std::string::npos);

  Recipe named = four_rails();
  named.hardware.rails = {"ens3f0np0", "ens1f0np0", "ens4f0np0", "ens2f0np0"};
  w = wait_for_devices(named, {}, std::chrono::seconds(1));
  CHECK(devices_check(w, named.hardware).detail.find("rail NIC 'ens2f0np0' (hardware.rails) not present") !=
        std::string::npos);
}

TEST_CASE("device wait: a NIC renamed during the wait is taken under its final name") {
  Split f = split_fixture();
  Testbed t;
  t.add(f.rest);
  // As the kernel names it before udev renames it: eth5, its GIDs naming eth5.
  auto kernel_named = [](std::string s) {
    for (std::size_t at; (at = s.find("ens2f0np0")) != std::string::npos;) s.replace(at, 9, "eth5");
    return s;
  };
  t.add(kernel_named(f.nic));
  Recipe named = four_rails();
  named.hardware.rails = {"ens3f0np0", "ens1f0np0", "ens4f0np0", "ens2f0np0"};
  std::thread rename([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    umockdev_testbed_remove_device(t.bed, ("/sys" + kNic + "/infiniband/mlx5_0").c_str());
    umockdev_testbed_remove_device(t.bed, ("/sys" + kNic + "/net/eth5").c_str());
    t.add(f.nic);
  });
  DeviceWait w = wait_for_devices(named, {}, std::chrono::seconds(20));
  rename.join();
  CHECK(w.complete());
  CHECK(w.waited_ms >= 400);
  CHECK(w.inventory.nic("eth5") == nullptr);
  REQUIRE(w.inventory.nic("ens2f0np0"));
  RailMap m = map_rails(w.inventory, named.hardware, false);
  REQUIRE(m.rails.size() == 4);
  CHECK(w.inventory.nics[m.rails[3].nic].ifname == "ens2f0np0");
}

// What makes a name final, from udev's database and the kernel's name_assign_type (the
// management NIC of a lab boot was planned as eth0, udev's entry for it already written, and
// renamed enp0s2 a moment later: it became a rail and vanished under the agent).
TEST_CASE("device wait: an interface's name is final only once udev is done with it") {
  NetState net;
  net.initialized = {"enp0s2", "enp17s0", "eth0", "eth1", "eth2", "ib0"};
  net.pending = {"eth3"};
  net.renaming = {"eth1"};
  net.chosen = {{"enp0s2", "enp0s2"}, {"enp17s0", "enp17s0"}, {"eth0", "enp0s3"}, {"eth1", "enp0s4"}};
  const int renamed = 4, user = 3;  // NET_NAME_RENAMED, NET_NAME_USER
  std::vector<PresentNic> present = {
      {"enp0s2", true, renamed},    {"enp17s0", true, renamed},   {"eth0", true, kNetNameEnum},
      {"eth1", true, kNetNameEnum}, {"eth2", true, kNetNameEnum}, {"eth3", true, kNetNameEnum},
      {"eth9", true, kNetNameEnum}, {"ib0", false, kNetNameEnum}, {"enp17s0.100", false, user}};
  net.initialized.insert("enp17s0.100");

  std::vector<std::string> quiet = unnamed_interfaces(net, present, false);
  CHECK(quiet == std::vector<std::string>{"net eth3 not yet initialized by udev", "net eth1 being renamed by udev",
                                          "net eth9 not yet initialized (renamed) by udev"});
  // udev still working through its queue: eth0 and eth2, PCI NICs under the kernel's names
  // with entries, may be renamed by a queued "add"; ib0 (no PCI function of its own, no name
  // chosen) and the VLAN are never renamed.
  std::vector<std::string> busy = unnamed_interfaces(net, present, true);
  CHECK(busy == std::vector<std::string>{
                    "net eth3 not yet initialized by udev",
                    "net eth0 still has the kernel's name while udev has events queued; udev names it enp0s3",
                    "net eth1 being renamed by udev",
                    "net eth2 still has the kernel's name while udev has events queued",
                    "net eth9 not yet initialized (renamed) by udev"});

  // A bridge its creator named (NET_NAME_USER, no PCI function) and lo (the kernel's
  // NET_NAME_PREDICTABLE) are never renamed: udev not having processed them yet keeps nobody
  // waiting. A PCI NIC named so still waits for udev.
  NetState bridged;
  bridged.pending = {"br-rails", "ens9", "lo"};
  CHECK(unnamed_interfaces(bridged,
                           {{"br-rails", false, user}, {"ens9", true, user}, {"lo", false, kNetNamePredictable}},
                           false) == std::vector<std::string>{"net ens9 not yet initialized by udev"});
  bridged.pending.clear();
  CHECK(unnamed_interfaces(bridged, {{"br-rails", false, user}}, true).empty());

  // udev clears ID_RENAMING only with the "move" the rename raised, queued behind the rest of
  // coldplug: an interface the kernel already has renamed (NET_NAME_RENAMED) under the name
  // udev chose is renamed. Under another name (renamed by someone else first) it still waits.
  NetState moved;
  moved.initialized = {"enp0s4", "enp0s5", "ens7"};
  moved.renaming = {"enp0s4", "enp0s5", "ens7"};
  moved.chosen = {{"enp0s4", "enp0s4"}, {"enp0s5", "ens5"}};
  CHECK(unnamed_interfaces(moved, {{"enp0s4", true, renamed}, {"enp0s5", true, renamed}, {"ens7", true, renamed}},
                           true) == std::vector<std::string>{"net enp0s5 being renamed by udev"});

  // Kernel names kept on purpose (net.ifnames=0, a .link file without a name policy): final
  // once udev is idle.
  NetState kept;
  kept.initialized = {"eth0", "eth1"};
  CHECK(unnamed_interfaces(kept, {{"eth0", true, kNetNameEnum}, {"eth1", true, kNetNameEnum}}, false).empty());
  // udev idle: a rename it chose and could not make (the interface was up) never comes.
  kept.chosen = {{"eth0", "enp0s3"}};
  CHECK(unnamed_interfaces(kept, {{"eth0", true, kNetNameEnum}}, false).empty());
}
