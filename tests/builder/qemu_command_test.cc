// builder/qemu/pcie_layout.cc and vm_command.cc: the lab VM's device tree for 1..8 rails,
// its NUMA nodes, MACs, the rails' switch and cables, the management NIC, and the storage
// target's twin command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "qemu/lab_identity.h"
#include "qemu/pcie_layout.h"
#include "qemu/vm_command.h"

using namespace railyard;

namespace {

VmSpec node_spec(int rails) {
  VmSpec s;
  s.name = "node";
  s.kernel = "/img/vmlinuz";
  s.initrd = "/run/node/initrd.img";
  s.append = "console=ttyS0 railyard.qemu=1";
  s.management_mac = "52:54:00:00:00:01";
  s.uuid = smbios_uuid(s.management_mac);
  s.rail_macs = rail_macs(s.management_mac, rails);
  s.console_log = "/run/node/console.log";
  s.ports = {{"org.railyard.report", "/run/node/report.json"}};
  return s;
}

// The values of every occurrence of `option`, in order.
std::vector<std::string> values(const std::vector<std::string>& argv, const std::string& option) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == option) out.push_back(argv[i + 1]);
  return out;
}

// The -device values whose driver is `driver`.
std::vector<std::string> devices(const std::vector<std::string>& argv, const std::string& driver) {
  std::vector<std::string> out;
  for (const auto& d : values(argv, "-device"))
    if (d.rfind(driver + ",", 0) == 0) out.push_back(d);
  return out;
}

// property=value of a QEMU option value.
std::string prop(const std::string& value, const std::string& key) {
  std::string k = "," + key + "=";
  auto at = ("," + value).find(k);
  if (at == std::string::npos) return "<none>";
  std::string rest = ("," + value).substr(at + k.size());
  return rest.substr(0, rest.find(','));
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("four rails: two on NUMA 0 root ports, two behind the switch on NUMA 1, where the guest sees them") {
  PcieLayout l = pcie_layout(4);
  REQUIRE(l.rails.size() == 4);
  std::vector<std::string> pci, bus;
  for (const auto& r : l.rails) pci.push_back(r.guest_pci), bus.push_back(r.qemu_bus);
  // As the qemu-virt fixture and a booted guest have them: enp17s0, enp18s0, enp35s0, enp36s0.
  CHECK(pci == std::vector<std::string>{"0000:11:00.0", "0000:12:00.0", "0000:23:00.0", "0000:24:00.0"});
  CHECK(bus == std::vector<std::string>{"rp0", "rp1", "switch-down0", "switch-down1"});
  CHECK(l.rails[0].numa_node == 0);
  CHECK(l.rails[1].numa_node == 0);
  CHECK(l.rails[2].numa_node == 1);
  CHECK(l.rails[3].numa_node == 1);
  CHECK_FALSE(l.rails[1].behind_switch);
  CHECK(l.rails[2].behind_switch);
  CHECK(l.devices == std::vector<std::string>{
                         "pxb-pcie,id=pxb0,bus_nr=16,numa_node=0,bus=pcie.0,addr=0x3",
                         "pxb-pcie,id=pxb1,bus_nr=32,numa_node=1,bus=pcie.0,addr=0x4",
                         "pcie-root-port,id=rp0,bus=pxb0,addr=0x00,chassis=1,slot=0",
                         "pcie-root-port,id=rp1,bus=pxb0,addr=0x01,chassis=2,slot=0",
                         "pcie-root-port,id=rp-switch,bus=pxb1,addr=0x00,chassis=3,slot=0",
                         "x3130-upstream,id=switch-up,bus=rp-switch",
                         "xio3130-downstream,id=switch-down0,bus=switch-up,addr=0x00,chassis=4,slot=0",
                         "xio3130-downstream,id=switch-down1,bus=switch-up,addr=0x01,chassis=5,slot=0",
                     });
}

TEST_CASE("1 to 8 rails: every rail has its own slot, NUMA 0 gets the odd one, chassis never repeat") {
  for (int n = 1; n <= kMaxRails; ++n) {
    CAPTURE(n);
    PcieLayout l = pcie_layout(n);
    REQUIRE(static_cast<int>(l.rails.size()) == n);
    std::set<std::string> pci, buses, chassis;
    int numa0 = 0;
    for (int i = 0; i < n; ++i) {
      CHECK(l.rails[static_cast<std::size_t>(i)].rail == i);
      pci.insert(l.rails[static_cast<std::size_t>(i)].guest_pci);
      buses.insert(l.rails[static_cast<std::size_t>(i)].qemu_bus);
      numa0 += l.rails[static_cast<std::size_t>(i)].numa_node == 0;
      CHECK(l.rails[static_cast<std::size_t>(i)].behind_switch ==
            (l.rails[static_cast<std::size_t>(i)].numa_node == 1));
    }
    CHECK(static_cast<int>(pci.size()) == n);
    CHECK(static_cast<int>(buses.size()) == n);
    CHECK(numa0 == (n + 1) / 2);
    for (const auto& d : l.devices)
      if (d.find("chassis=") != std::string::npos) CHECK(chassis.insert(prop(d, "chassis")).second);
    bool has_switch = std::any_of(l.devices.begin(), l.devices.end(),
                                  [](const std::string& d) { return d.rfind("x3130-upstream", 0) == 0; });
    CHECK(has_switch == (n >= 2));
    // Rails keep bus order: rail index order is PCI address order, as the agent maps GPU-less rails.
    CHECK(std::is_sorted(l.rails.begin(), l.rails.end(),
                         [](const RailSlot& a, const RailSlot& b) { return a.guest_pci < b.guest_pci; }));
  }
  CHECK(pcie_layout(8).rails[7].guest_pci == "0000:26:00.0");
  CHECK(pcie_layout(8).rails[3].guest_pci == "0000:14:00.0");
}

TEST_CASE("the node VM: q35, TCG with -cpu max, two NUMA nodes, no reboot, no defaults") {
  auto argv = qemu_argv(node_spec(4));
  CHECK(argv[0] == "qemu-system-x86_64");
  CHECK(values(argv, "-machine") == std::vector<std::string>{"q35"});
  CHECK(values(argv, "-accel") == std::vector<std::string>{"tcg"});
  CHECK(values(argv, "-cpu") == std::vector<std::string>{"max"});
  CHECK(has(argv, "-no-reboot"));
  CHECK(has(argv, "-nodefaults"));
  CHECK(values(argv, "-numa") ==
        std::vector<std::string>{"node,nodeid=0,cpus=0,memdev=mem0", "node,nodeid=1,cpus=1,memdev=mem1"});
  CHECK(values(argv, "-smp") == std::vector<std::string>{"2,sockets=2,cores=1,threads=1"});  // a socket per node
  CHECK(values(argv, "-object") ==
        std::vector<std::string>{"memory-backend-ram,id=mem0,size=1024M", "memory-backend-ram,id=mem1,size=1024M"});
  CHECK(values(argv, "-uuid") == std::vector<std::string>{"00000000-0000-4000-8000-525400000001"});
  CHECK(values(argv, "-kernel") == std::vector<std::string>{"/img/vmlinuz"});
  CHECK(values(argv, "-append") == std::vector<std::string>{"console=ttyS0 railyard.qemu=1"});
  CHECK_FALSE(has(argv, "-S"));

  VmSpec kvm = node_spec(4);
  kvm.kvm = true;
  kvm.cpus = 4;
  auto k = qemu_argv(kvm);
  CHECK(values(k, "-accel") == std::vector<std::string>{"kvm"});
  CHECK(values(k, "-numa") ==
        std::vector<std::string>{"node,nodeid=0,cpus=0-1,memdev=mem0", "node,nodeid=1,cpus=2-3,memdev=mem1"});
  CHECK(values(k, "-smp") == std::vector<std::string>{"4,sockets=2,cores=2,threads=1"});
  kvm.cpus = 3;  // 1 + 2: no even split, so a socket per CPU
  CHECK(values(qemu_argv(kvm), "-smp") == std::vector<std::string>{"3,sockets=3,cores=1,threads=1"});
}

TEST_CASE("the management NIC: root complex slot 2, restricted user networking, no ROM, the collector forward") {
  VmSpec s = node_spec(2);
  s.forwards = {{"10.0.2.100:80", "cmd:/usr/bin/railyard qemu --relay 127.0.0.1:8080"}};
  auto argv = qemu_argv(s);
  auto nets = values(argv, "-netdev");
  REQUIRE(!nets.empty());
  CHECK(nets[0] ==
        "user,id=node-mgmt,restrict=on,guestfwd=tcp:10.0.2.100:80-cmd:/usr/bin/railyard qemu --relay 127.0.0.1:8080");
  auto nics = devices(argv, "virtio-net-pci");
  REQUIRE(nics.size() == 3);
  CHECK(nics[0] == "virtio-net-pci,id=node-mgmt,netdev=node-mgmt,mac=52:54:00:00:00:01,bus=pcie.0,addr=2,romfile=");
}

TEST_CASE("the management NIC's host forwards: 127.0.0.1 only, checked") {
  VmSpec s = node_spec(2);
  s.host_forwards = {{40001, 6818}};
  auto nets = values(qemu_argv(s), "-netdev");
  REQUIRE(!nets.empty());
  CHECK(nets[0] == "user,id=node-mgmt,restrict=on,hostfwd=tcp:127.0.0.1:40001-:6818");
  s.host_forwards = {{0, 6818}};
  CHECK(vm_spec_error(s) == "host forward port 0 is not a TCP port");
}

TEST_CASE("rail NICs: MACs from the management MAC, on their slots, on one switch with no one else on it") {
  auto argv = qemu_argv(node_spec(4));
  auto nics = devices(argv, "virtio-net-pci");
  REQUIRE(nics.size() == 5);
  std::map<std::string, std::string> bus_of;
  for (std::size_t i = 1; i < nics.size(); ++i) {
    CHECK(prop(nics[i], "romfile") == "");  // no iPXE ROM on rails
    CHECK(prop(nics[i], "id") == "node-rail" + std::to_string(i - 1));
    CHECK(prop(nics[i], "netdev") == "node-switch" + std::to_string(i - 1));
    bus_of[prop(nics[i], "mac")] = prop(nics[i], "bus");
  }
  CHECK(bus_of == std::map<std::string, std::string>{{"52:54:00:10:00:01", "rp0"},
                                                     {"52:54:00:11:00:01", "rp1"},
                                                     {"52:54:00:12:00:01", "switch-down0"},
                                                     {"52:54:00:13:00:01", "switch-down1"}});
  auto nets = values(argv, "-netdev");
  CHECK(nets.size() == 5);  // the management NIC's and the hub's ports, no uplink
  for (int r = 0; r < 4; ++r) CHECK(has(nets, "hubport,id=node-switch" + std::to_string(r) + ",hubid=0"));
}

TEST_CASE("cables: each rail NIC on a stream socket of its own, by descriptor; the leaf puts each on a hub") {
  VmSpec node = node_spec(2);
  node.wiring = RailWiring::cables;
  node.rail_wires = {7, 9};
  REQUIRE(vm_spec_error(node).empty());
  auto nets = values(qemu_argv(node), "-netdev");
  CHECK(has(nets, "socket,id=node-switch0,fd=7"));
  CHECK(has(nets, "socket,id=node-switch1,fd=9"));
  VmSpec leaf = node_spec(2);
  leaf.name = "target";
  leaf.wiring = RailWiring::leaf;
  leaf.rail_wires = {8, 10};
  leaf.storage_mac = "52:54:00:10:00:02";
  REQUIRE(vm_spec_error(leaf).empty());
  nets = values(qemu_argv(leaf), "-netdev");
  CHECK(has(nets, "socket,id=target-wire1,fd=10"));
  CHECK(has(nets, "hubport,id=target-wire1-port,hubid=1,netdev=target-wire1"));
  CHECK(has(nets, "hubport,id=target-switch1,hubid=1"));
  CHECK(has(nets, "hubport,id=target-storage,hubid=0"));
  node.rail_wires = {7};
  CHECK(vm_spec_error(node) == "1 rail wires for 2 rails");
  node.rail_wires = {7, 2};
  CHECK(vm_spec_error(node) == "wire descriptor 2 is not a socket of the run");
  VmSpec hub = node_spec(2);
  hub.rail_wires = {7, 9};
  CHECK(vm_spec_error(hub) == "a hub's rails have no wires");
}

TEST_CASE("the storage target: the same topology from the same image, its own MACs") {
  VmSpec t = node_spec(4);
  t.name = "target";
  t.management_mac = "52:54:00:00:00:02";
  t.rail_macs = rail_macs(t.management_mac, 4);
  t.append += " railyard.role=storage-target";
  auto node = qemu_argv(node_spec(4));
  auto target = qemu_argv(t);
  CHECK(has(devices(target, "virtio-net-pci"),
            "virtio-net-pci,id=target-rail0,netdev=target-switch0,mac=52:54:00:10:00:02,bus=rp0,romfile="));
  CHECK(values(target, "-append")[0].find("railyard.role=storage-target") != std::string::npos);
  // The same PCIe tree: rail k of the target sits where rail k of the node does.
  CHECK(devices(node, "pcie-root-port") == devices(target, "pcie-root-port"));
  CHECK(devices(node, "xio3130-downstream") == devices(target, "xio3130-downstream"));
}

TEST_CASE("consoles: serial in a file, one virtio-serial port per exported file, QMP and a paused start") {
  VmSpec s = node_spec(1);
  s.ports.push_back({"org.railyard.status", "/run/a,b/status.json"});
  s.qmp_socket = "/run/node.qmp";
  s.paused = true;
  auto argv = qemu_argv(s);
  CHECK(values(argv, "-serial") == std::vector<std::string>{"chardev:node-console"});
  auto chardevs = values(argv, "-chardev");
  CHECK(has(chardevs, "file,id=node-console,path=/run/node/console.log"));
  CHECK(has(chardevs, "file,id=node-port1,path=/run/a,,b/status.json"));  // commas doubled for QEMU
  CHECK(has(devices(argv, "virtserialport"),
            "virtserialport,bus=node-vser.0,chardev=node-port0,name=org.railyard.report"));
  CHECK(values(argv, "-qmp") == std::vector<std::string>{"unix:/run/node.qmp,server=on,wait=off"});
  CHECK(has(argv, "-S"));
}

TEST_CASE("a network boot keeps QEMU's own iPXE ROM, serves the tree over TFTP and shows the BIOS on serial") {
  VmSpec s = node_spec(2);
  s.kernel.clear();
  s.initrd.clear();
  s.tftp_root = "/srv/tree";
  s.bootfile = "boot.ipxe";
  s.bios_serial_console = "/run/node/sercon-port";
  REQUIRE(vm_spec_error(s).empty());
  auto argv = qemu_argv(s);
  CHECK(values(argv, "-kernel").empty());
  CHECK(values(argv, "-append").empty());
  CHECK(values(argv, "-netdev")[0] == "user,id=node-mgmt,restrict=on,tftp=/srv/tree,bootfile=boot.ipxe");
  CHECK(values(argv, "-fw_cfg") == std::vector<std::string>{"name=etc/sercon-port,file=/run/node/sercon-port"});
  auto mgmt = devices(argv, "virtio-net-pci")[0];
  // No romfile= at all: only QEMU's default ROM gets its PCI IDs patched to match the NIC.
  CHECK(prop(mgmt, "romfile") == "<none>");
  CHECK(prop(mgmt, "bootindex") == "0");
  for (std::size_t i = 1; i < devices(argv, "virtio-net-pci").size(); ++i)
    CHECK(prop(devices(argv, "virtio-net-pci")[i], "romfile") == "");
  CHECK(values(qemu_argv(node_spec(2)), "-fw_cfg").empty());
}

TEST_CASE("specs that cannot make a VM are refused with the reason") {
  CHECK(vm_spec_error(node_spec(4)).empty());
  VmSpec none = node_spec(1);
  none.rail_macs.clear();
  CHECK(vm_spec_error(none) == "rails: 0; allowed: 1–8");
  CHECK(vm_spec_error(node_spec(9)) == "rails: 9; allowed: 1–8");
  VmSpec one_cpu = node_spec(2);
  one_cpu.cpus = 1;
  CHECK(vm_spec_error(one_cpu).find("at least 2") != std::string::npos);
  VmSpec mac = node_spec(2);
  mac.management_mac = "52:54:00:00:01";
  CHECK(vm_spec_error(mac).find("not a MAC address") != std::string::npos);
  VmSpec pxe = node_spec(2);
  pxe.kernel.clear();
  CHECK(vm_spec_error(pxe).find("TFTP tree") != std::string::npos);
}
