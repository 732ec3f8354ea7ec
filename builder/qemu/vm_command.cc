#include "vm_command.h"

#include "net.h"
#include "pcie_layout.h"

namespace railyard {

namespace {

// QEMU option values separate properties with commas; a comma inside a value is doubled.
std::string value(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == ',') out += ',';
  }
  return out;
}

std::string cpu_range(int first, int count) {
  return count == 1 ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(first + count - 1);
}

void add(std::vector<std::string>& argv, const std::string& option, const std::string& v) {
  argv.push_back(option);
  argv.push_back(v);
}

void machine(const VmSpec& s, std::vector<std::string>& argv) {
  add(argv, "-machine", "q35");
  if (s.kvm) {
    add(argv, "-accel", "kvm");
    add(argv, "-cpu", "host");
  } else {
    add(argv, "-accel", "tcg");
    add(argv, "-cpu", "max");  // the guest kernel's pclmul crypto modules need it
  }
  // One socket per NUMA node, as on a two-socket server: the guest kernel finds each CPU's
  // last-level cache on its own node (sharing one socket across the two nodes makes it warn,
  // with a stack dump, at every boot). An odd count cannot split evenly: a socket per CPU.
  int sockets = s.cpus % 2 == 0 ? 2 : s.cpus;
  add(argv, "-smp",
      std::to_string(s.cpus) + ",sockets=" + std::to_string(sockets) + ",cores=" + std::to_string(s.cpus / sockets) +
          ",threads=1");
  add(argv, "-m", std::to_string(s.memory_mib));
  if (!s.uuid.empty()) add(argv, "-uuid", s.uuid);
  for (const char* flag : {"-nodefaults", "-no-reboot", "-no-user-config"}) argv.push_back(flag);
  add(argv, "-display", "none");
  int half = s.memory_mib / 2;
  int near = s.cpus / 2;
  add(argv, "-object", "memory-backend-ram,id=mem0,size=" + std::to_string(half) + "M");
  add(argv, "-object", "memory-backend-ram,id=mem1,size=" + std::to_string(s.memory_mib - half) + "M");
  add(argv, "-numa", "node,nodeid=0,cpus=" + cpu_range(0, near) + ",memdev=mem0");
  add(argv, "-numa", "node,nodeid=1,cpus=" + cpu_range(near, s.cpus - near) + ",memdev=mem1");
}

void boot(const VmSpec& s, std::vector<std::string>& argv) {
  if (s.kernel.empty()) {  // network boot: the management NIC has bootindex=0
    if (!s.bios_serial_console.empty())
      add(argv, "-fw_cfg", "name=etc/sercon-port,file=" + value(s.bios_serial_console));
    return;
  }
  add(argv, "-kernel", value(s.kernel));
  if (!s.initrd.empty()) add(argv, "-initrd", value(s.initrd));
  if (!s.append.empty()) add(argv, "-append", s.append);
}

void management(const VmSpec& s, std::vector<std::string>& argv) {
  // restrict=on: the guest reaches nothing outside QEMU but the forwards named here.
  std::string net = "user,id=" + s.name + "-mgmt,restrict=on";
  if (!s.tftp_root.empty()) net += ",tftp=" + value(s.tftp_root);
  if (!s.bootfile.empty()) net += ",bootfile=" + value(s.bootfile);
  for (const auto& f : s.forwards) net += ",guestfwd=tcp:" + f.guest + "-" + value(f.target);
  for (const auto& f : s.host_forwards)
    net += ",hostfwd=tcp:127.0.0.1:" + std::to_string(f.host_port) + "-:" + std::to_string(f.guest_port);
  add(argv, "-netdev", net);
  std::string nic = "virtio-net-pci,id=" + s.name + "-mgmt,netdev=" + s.name + "-mgmt,mac=" + s.management_mac +
                    ",bus=pcie.0,addr=" + std::to_string(kManagementSlot);
  nic += s.kernel.empty() ? ",bootindex=0" : ",romfile=";
  add(argv, "-device", nic);
}

std::string wire_socket(const std::string& id, Wire w) { return "socket,id=" + id + ",fd=" + std::to_string(w); }

void rails(const VmSpec& s, std::vector<std::string>& argv) {
  PcieLayout layout = pcie_layout(static_cast<int>(s.rail_macs.size()));
  for (const auto& d : layout.devices) add(argv, "-device", d);
  for (const auto& slot : layout.rails) {
    auto k = static_cast<std::size_t>(slot.rail);
    std::string port = s.name + "-switch" + std::to_string(slot.rail);
    switch (s.wiring) {
      case RailWiring::hub: add(argv, "-netdev", "hubport,id=" + port + ",hubid=0"); break;
      case RailWiring::cables: add(argv, "-netdev", wire_socket(port, s.rail_wires[k])); break;
      case RailWiring::leaf: {
        std::string wire = s.name + "-wire" + std::to_string(slot.rail), hub = std::to_string(slot.rail);
        add(argv, "-netdev", wire_socket(wire, s.rail_wires[k]));
        add(argv, "-netdev", "hubport,id=" + wire + "-port,hubid=" + hub + ",netdev=" + wire);
        add(argv, "-netdev", "hubport,id=" + port + ",hubid=" + hub);
        break;
      }
    }
    // romfile= (empty): no iPXE ROM on rails; only the management NIC may network boot.
    add(argv, "-device",
        "virtio-net-pci,id=" + rail_nic_id(s, slot.rail) + ",netdev=" + port + ",mac=" + s.rail_macs[k] +
            ",bus=" + slot.qemu_bus + ",romfile=");
  }
  if (s.wiring == RailWiring::leaf) {
    // Hub ids 0..rails-1 are the rails'; the cable of routed rails takes the next.
    std::string hub = s.storage_port_mac.empty() ? "0" : std::to_string(s.rail_macs.size());
    add(argv, "-netdev", "hubport,id=" + s.name + "-storage,hubid=" + hub);
    add(argv, "-device",
        "virtio-net-pci,id=" + s.name + "-storage,netdev=" + s.name + "-storage,mac=" + s.storage_mac +
            ",bus=pcie.0,addr=" + std::to_string(kStorageSlot) + ",romfile=");
    if (!s.storage_port_mac.empty()) {
      add(argv, "-netdev", "hubport,id=" + s.name + "-storage-port,hubid=" + hub);
      add(argv, "-device",
          "virtio-net-pci,id=" + s.name + "-storage-port,netdev=" + s.name + "-storage-port,mac=" + s.storage_port_mac +
              ",bus=pcie.0,addr=" + std::to_string(kStoragePortSlot) + ",romfile=");
    }
  }
}

void consoles(const VmSpec& s, std::vector<std::string>& argv) {
  add(argv, "-chardev", "file,id=" + s.name + "-console,path=" + value(s.console_log));
  add(argv, "-serial", "chardev:" + s.name + "-console");
  if (!s.ports.empty()) {
    add(argv, "-device", "virtio-serial-pci,id=" + s.name + "-vser,bus=pcie.0,addr=" + std::to_string(kSerialSlot));
    for (std::size_t i = 0; i < s.ports.size(); ++i) {
      std::string id = s.name + "-port" + std::to_string(i);
      add(argv, "-chardev", "file,id=" + id + ",path=" + value(s.ports[i].path));
      add(argv, "-device", "virtserialport,bus=" + s.name + "-vser.0,chardev=" + id + ",name=" + s.ports[i].name);
    }
  }
  if (!s.qmp_socket.empty()) add(argv, "-qmp", "unix:" + value(s.qmp_socket) + ",server=on,wait=off");
  if (s.paused) argv.push_back("-S");
}

}  // namespace

std::string rail_nic_id(const VmSpec& spec, int index) { return spec.name + "-rail" + std::to_string(index); }

std::string vm_spec_error(const VmSpec& s) {
  if (s.rail_macs.empty() || s.rail_macs.size() > static_cast<std::size_t>(kMaxRails))
    return "rails: " + std::to_string(s.rail_macs.size()) + "; allowed: 1–" + std::to_string(kMaxRails);
  if (s.cpus < 2) return "cpus: " + std::to_string(s.cpus) + "; at least 2 (one per NUMA node)";
  if (s.memory_mib < 512) return "memory: " + std::to_string(s.memory_mib) + " MiB; at least 512";
  if (!normalize_mac(s.management_mac)) return "management MAC '" + s.management_mac + "' is not a MAC address";
  for (std::size_t i = 0; i < s.rail_macs.size(); ++i)
    if (!normalize_mac(s.rail_macs[i]))
      return "rail " + std::to_string(i) + " MAC '" + s.rail_macs[i] + "' is not a MAC address";
  if (s.wiring != RailWiring::hub && s.rail_wires.size() != s.rail_macs.size())
    return std::to_string(s.rail_wires.size()) + " rail wires for " + std::to_string(s.rail_macs.size()) + " rails";
  if (s.wiring == RailWiring::hub && !s.rail_wires.empty()) return "a hub's rails have no wires";
  for (Wire w : s.rail_wires)
    if (w <= 2) return "wire descriptor " + std::to_string(w) + " is not a socket of the run";
  for (const auto& f : s.host_forwards)
    for (int port : {f.host_port, f.guest_port})
      if (port <= 0 || port > 65535) return "host forward port " + std::to_string(port) + " is not a TCP port";
  if (s.wiring == RailWiring::leaf && !normalize_mac(s.storage_mac))
    return "storage NIC MAC '" + s.storage_mac + "' is not a MAC address";
  if (s.wiring == RailWiring::leaf && !s.storage_port_mac.empty() && !normalize_mac(s.storage_port_mac))
    return "storage port MAC '" + s.storage_port_mac + "' is not a MAC address";
  if (s.kernel.empty() && (s.tftp_root.empty() || s.bootfile.empty()))
    return "a network boot needs a TFTP tree and a boot file";
  if (s.console_log.empty()) return "no console log file";
  return "";
}

std::vector<std::string> qemu_argv(const VmSpec& s) {
  std::vector<std::string> argv{s.qemu};
  add(argv, "-name", s.name);
  machine(s, argv);
  boot(s, argv);
  management(s, argv);
  rails(s, argv);
  consoles(s, argv);
  return argv;
}

}  // namespace railyard
