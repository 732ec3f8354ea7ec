// One lab VM as a QEMU command line: q35, two NUMA nodes, a management virtio NIC on the
// root complex (user networking, restricted), the rail virtio NICs of pcie_layout(), the
// serial console in a file and the virtio-serial ports the guest reports through. Pure:
// the same spec always gives the same arguments.
#pragma once

#include <string>
#include <vector>

namespace railyard {

// A cable between two lab VMs: one end of a stream socket pair (socketpair(2), AF_UNIX) the
// run makes, handed to QEMU as `-netdev socket,fd=N`; the other VM holds the other end. A
// stream, not datagrams: QEMU frames each Ethernet frame with its length, and when the peer
// is slow to take them the socket fills and the sending NIC waits, as a lossless (PFC) link
// does, where UDP between two QEMUs dropped whole bursts of RDMA traffic under TCG.
using Wire = int;

// How a VM's rail NICs reach the other VM.
enum class RailWiring {
  // Every rail NIC on one QEMU hub: a switch that forwards everything, has no LLDP and no
  // one else on it (a node booted alone). The NICs still have carrier. One segment, not one
  // per rail: Soft-RoCE writes from one rail to another of the same host leave by one NIC and
  // must come back in by the other.
  hub,
  // The node beside the lab leaf: rail k's NIC on a wire of its own, rail_wires[k], as a cable
  // to one leaf port.
  cables,
  // The lab leaf: port k's NIC on QEMU hub k with the wire rail_wires[k] (a node's rail; with
  // several nodes, ports 0..rails-1 are the first node's, then the next's), and the storage
  // server's NIC (storage_mac) on hub 0, plugged into rail 0's segment. The leaf guest bridges
  // its ports (frames cross between rails there, LLDP does not) and speaks LLDP on each.
  // With storage_port_mac (routed rails), the storage NIC is instead cabled, on a hub of
  // its own, to that NIC of the same VM: one more port of rail 0's leaf, which routes.
  leaf,
};

// A virtio-serial port the guest writes to (/dev/virtio-ports/NAME), kept in a host file.
struct SerialPort {
  std::string name;  // "org.railyard.report"
  std::string path;
};

// QEMU user networking's guestfwd: guest connections to `guest` (10.0.2.100:80) are
// handed to `target`, in QEMU's words: "cmd:PROGRAM ARGS" runs PROGRAM per connection.
struct GuestForward {
  std::string guest;
  std::string target;
};

// QEMU user networking's hostfwd: connections to 127.0.0.1:`host_port` on the host reach the
// guest's `guest_port` (restrict=on leaves explicit forwards working).
struct HostForward {
  int host_port = 0;
  int guest_port = 0;
};

struct VmSpec {
  std::string name = "node";  // prefixes ids; the node and its storage target differ
  std::string qemu = "qemu-system-x86_64";
  bool kvm = false;       // else TCG with -cpu max
  int cpus = 2;           // one per NUMA node, or split evenly
  int memory_mib = 2048;  // split evenly over the two NUMA nodes
  // Direct kernel boot; when `kernel` is empty the VM boots from its management NIC's iPXE ROM.
  std::string kernel;
  std::string initrd;
  std::string append;
  std::string management_mac;
  std::string uuid;  // the SMBIOS system UUID (the node's stable NVMe host identity); "" for none
  // For network boots: QEMU's own iPXE ROM on the management NIC (an explicit romfile=
  // would not have its PCI IDs patched to the NIC's, and SeaBIOS would skip it), user
  // networking's TFTP server and boot file, and SeaBIOS's console on the serial port
  // (fw_cfg etc/sercon-port from this file: 0x3f8, little endian) so that iPXE shows there.
  std::string tftp_root;
  std::string bootfile;
  std::string bios_serial_console;
  std::vector<GuestForward> forwards;
  std::vector<HostForward> host_forwards;
  std::vector<std::string> rail_macs;  // one per rail, 1..kMaxRails (the leaf: its ports)
  RailWiring wiring = RailWiring::hub;
  std::vector<Wire> rail_wires;  // cables, leaf: one per rail NIC (the leaf: per port)
  std::string storage_mac;       // leaf: the storage server's NIC
  std::string storage_port_mac;  // leaf, routed rails: rail 0's leaf port the storage NIC is cabled to
  std::vector<SerialPort> ports;
  std::string console_log;
  std::string qmp_socket;  // a QMP server socket, for link changes before the guest runs
  bool paused = false;     // start stopped (-S) until QMP says `cont`
};

// The argument vector, argv[0] included. Assumes a spec that vm_spec_error() accepts.
std::vector<std::string> qemu_argv(const VmSpec& spec);

// Why the spec cannot make a VM, or "" when it can.
std::string vm_spec_error(const VmSpec& spec);

// The NIC id QEMU knows rail `index` by (for QMP set_link).
std::string rail_nic_id(const VmSpec& spec, int index);

// Root-complex slot of the lab leaf's storage NIC (enp0s6 in the guest).
inline constexpr int kStorageSlot = 6;
inline constexpr int kStoragePortSlot = 7;  // routed rails: the leaf's port for the storage NIC

}  // namespace railyard
