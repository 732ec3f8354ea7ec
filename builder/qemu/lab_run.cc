#include <spdlog/spdlog.h>

#include "lab_run.h"

#include <archive.h>
#include <archive_entry.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "image/image_manifest.h"
#include "image/stages/command.h"
#include "io/process.h"
#include "lab_leaf.h"
#include "lab_result.h"
#include "lab_slurm.h"
#include "pcie_layout.h"
#include "qmp.h"
#include "slurm.h"
#include "text.h"
#include "vm_command.h"

namespace railyard {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Ports the guest scripts (overlays/lab-qemu) write to, and the file each lands in.
const std::vector<std::pair<std::string, std::string>> kNodePorts = {{"org.railyard.report", "report.json"},
                                                                     {"org.railyard.files", "files.tar"},
                                                                     {"org.railyard.status", "status.json"},
                                                                     {"org.railyard.rerun", "rerun.json"},
                                                                     {"org.railyard.rerun-files", "rerun-files.tar"},
                                                                     {"org.railyard.bench", "bench.txt"},
                                                                     {"org.railyard.journal", "journal.txt"},
                                                                     {"org.railyard.chain", "chain.txt"},
                                                                     {"org.railyard.verify", "verify.json"},
                                                                     {"org.railyard.slurm", "slurm.txt"},
                                                                     {"org.railyard.join-journal", "join-journal.txt"},
                                                                     {"org.railyard.topology", "topology.txt"}};
const std::vector<std::pair<std::string, std::string>> kTargetPorts = {{"org.railyard.target", "target.json"},
                                                                       {"org.railyard.target-chain", "chain.txt"}};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A whole JSON object in the file: the guest has finished writing it.
bool complete_json(const fs::path& p) {
  std::string t = read_text(p);
  if (t.empty()) return false;
  auto j = nlohmann::json::parse(t, nullptr, false);
  return !j.is_discarded() && j.is_object();
}

// A TCP port of 127.0.0.1 free now, for QEMU to take as a forward.
Outcome<int> free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) return Outcome<int>::fail("no free TCP port on 127.0.0.1");
  return static_cast<int>(ntohs(a.sin_port));
}

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::string archive_error(archive* a) {
  const char* e = a ? archive_error_string(a) : nullptr;
  return e ? e : "unknown error";
}

// The bytes of `path` with its compression (zstd) taken off, appended to `o` and padded to
// four bytes, the alignment the kernel wants of the next archive in an initramfs.
Status append_decompressed(const std::string& path, std::ofstream& o) {
  std::unique_ptr<archive, ArchiveFree> a(archive_read_new());
  archive_entry* entry = nullptr;
  if (!a || archive_read_support_filter_all(a.get()) != ARCHIVE_OK ||
      archive_read_support_format_raw(a.get()) != ARCHIVE_OK ||
      archive_read_open_filename(a.get(), path.c_str(), 1 << 20) != ARCHIVE_OK ||
      archive_read_next_header(a.get(), &entry) != ARCHIVE_OK)
    return Status::fail(path + ": cannot be decompressed: " + archive_error(a.get()));
  std::vector<char> buf(1 << 20);
  std::uint64_t total = 0;
  for (;;) {
    la_ssize_t n = archive_read_data(a.get(), buf.data(), buf.size());
    if (n < 0) return Status::fail(path + ": cannot be decompressed: " + archive_error(a.get()));
    if (n == 0) break;
    o.write(buf.data(), n);
    total += static_cast<std::uint64_t>(n);
  }
  for (; total % 4 != 0; ++total) o.put('\0');
  return success();
}

// The image's initrds, then the VM's identity, as the one file QEMU's -initrd takes. Under
// TCG the image's archives go in decompressed: the kernel unpacks an uncompressed cpio as
// it does a compressed one, and the emulated CPU takes seconds for the zstd decompression
// (about 9 s for the lab image, on each VM at once) that the host does in a fraction of
// one, as a real node's CPU would. The identity, a few kilobytes, stays as it is.
Status concatenate(const std::vector<std::string>& parts, std::size_t image_parts, bool decompress,
                   const fs::path& out) {
  std::ofstream o(out, std::ios::binary | std::ios::trunc);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (decompress && i < image_parts) {
      if (auto st = append_decompressed(p, o); !st.ok()) return st;
      continue;
    }
    std::ifstream in(p, std::ios::binary);
    if (!in) return Status::fail(p + ": cannot be read");
    o << in.rdbuf();
  }
  o.close();
  if (!o) return Status::fail(out.string() + ": cannot be written");
  return success();
}

std::string kernel_cmdline(const std::vector<std::string>& words) { return join(words, " "); }

nlohmann::ordered_json topology_json(const VmSpec& spec) {
  auto rails = nlohmann::ordered_json::array();
  for (const auto& slot : pcie_layout(static_cast<int>(spec.rail_macs.size())).rails) {
    auto k = static_cast<std::size_t>(slot.rail);
    nlohmann::ordered_json rail = {{"rail", slot.rail},           {"pci", slot.guest_pci},
                                   {"numa_node", slot.numa_node}, {"behind_switch", slot.behind_switch},
                                   {"mac", spec.rail_macs[k]},    {"qemu_id", rail_nic_id(spec, slot.rail)}};
    if (k < spec.rail_wires.size()) rail["wire_fd"] = spec.rail_wires[k];
    rails.push_back(std::move(rail));
  }
  const char* wiring = spec.wiring == RailWiring::hub ? "hub" : spec.wiring == RailWiring::cables ? "cables" : "leaf";
  nlohmann::ordered_json out = {
      {"vm", spec.name}, {"management_mac", spec.management_mac}, {"wiring", wiring}, {"rails", rails}};
  if (spec.wiring == RailWiring::leaf) out["storage_mac"] = spec.storage_mac;
  return out;
}

// How to boot the image: its kernel, its initrds in unpacking order, its command line.
struct ImageBoot {
  std::string kernel;
  std::vector<std::string> initrds;
  std::vector<std::string> cmdline;
};

Outcome<ImageBoot> image_boot(const std::string& image_dir) {
  std::string path = path_join(image_dir, kManifestFile);
  if (!fs::is_regular_file(path))
    return Outcome<ImageBoot>::fail(path + ": missing; IMAGE_DIR must be what railyard build wrote");
  auto m = read_image_manifest(path);
  if (!m.ok()) return Outcome<ImageBoot>::fail(m.error());
  ImageBoot b{path_join(image_dir, m->boot_kernel), {}, m->cmdline};
  for (const auto& i : m->boot_initrds) b.initrds.push_back(path_join(image_dir, i));
  std::vector<std::string> files = b.initrds;
  files.push_back(b.kernel);
  for (const auto& f : files)
    if (!fs::is_regular_file(f)) return Outcome<ImageBoot>::fail(path + ": lists " + f + ", which does not exist");
  return b;
}

// One VM of the run: its directory, spec and process.
struct Vm {
  fs::path dir;
  VmSpec spec;
  std::unique_ptr<Process> process;
};

Status prepare(Vm& vm, const LabOptions& o, const LabIdentity& id, const ImageBoot& boot, bool network_boot,
               const std::vector<std::string>& cmdline, const std::vector<std::pair<std::string, std::string>>& ports) {
  std::error_code ec;
  fs::create_directories(vm.dir, ec);
  if (ec) return Status::fail(vm.dir.string() + ": " + ec.message());
  VmSpec& s = vm.spec;
  s.qemu = o.qemu;
  s.kvm = o.kvm;
  s.cpus = o.cpus;
  s.memory_mib = o.memory_mib;
  s.management_mac = id.management_mac;
  s.uuid = smbios_uuid(id.management_mac);
  if (s.rail_macs.empty()) s.rail_macs = rail_macs(id.management_mac, o.rails);
  s.console_log = (vm.dir / "console.log").string();
  for (const auto& [name, file] : ports) {
    fs::remove(vm.dir / file, ec);
    s.ports.push_back({name, (vm.dir / file).string()});
  }
  s.forwards.push_back({kLabCollectorGuestAddress, o.collector.empty() ? "cmd:/bin/false"
                                                                       : "cmd:" + shell_quote({o.relay_program}) +
                                                                             " qemu --relay " + o.collector});
  if (network_boot) {
    s.tftp_root = o.pxe_tree;
    s.bootfile = "boot.ipxe";
    s.bios_serial_console = (vm.dir / "sercon-port").string();
    std::ofstream(s.bios_serial_console, std::ios::binary) << '\xf8' << '\x03';  // COM1, 0x3f8
  } else {
    fs::path identity = vm.dir / "identity.cpio.zst";
    if (auto st = write_identity_initrd(id, vm.dir.string(), identity.string()); !st.ok()) return st;
    std::vector<std::string> parts = boot.initrds;
    parts.push_back(identity.string());
    fs::path initrd = vm.dir / "initrd.img";
    if (auto st = concatenate(parts, boot.initrds.size(), !o.kvm, initrd); !st.ok()) return st;
    s.kernel = boot.kernel;
    s.initrd = initrd.string();
    s.append = kernel_cmdline(cmdline);
  }
  if (std::string why = vm_spec_error(s); !why.empty()) return Status::fail(s.name + " VM: " + why);
  std::ofstream(vm.dir / "topology.json") << topology_json(s).dump(2) << "\n";
  std::ofstream cmd(vm.dir / "qemu.cmdline");
  for (const auto& a : qemu_argv(s)) cmd << a << "\n";
  return success();
}

Status launch(Vm& vm) {
  auto p = Process::start({.argv = qemu_argv(vm.spec),
                           .log_path = (vm.dir / "qemu.log").string(),
                           .die_with_caller = true,
                           .pass_fds = vm.spec.rail_wires});
  if (!p.ok()) return Status::fail(p, vm.spec.name + " VM");
  vm.process = std::move(*p);
  return success();
}

// Waits for `file` to hold a whole JSON object while the VM runs; false on exit or deadline.
std::string tail_lines(const fs::path& p, std::size_t n) {
  std::vector<std::string> lines = split(read_text(p), '\n');
  std::size_t from = lines.size() > n ? lines.size() - n : 0;
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) out += "    " + lines[i] + "\n";
  return out;
}

int harness_error(const std::string& why, const Vm* vm) {
  // One message: in the journal, the lines that explain it stay with it.
  std::string message = why;
  if (vm && fs::exists(vm->dir / "qemu.log") && fs::file_size(vm->dir / "qemu.log") > 0)
    message += "\n  QEMU said:\n" + tail_lines(vm->dir / "qemu.log", 10);
  if (vm && fs::exists(vm->dir / "console.log"))
    message += "\n  last console lines (" + (vm->dir / "console.log").string() + "):\n" +
               tail_lines(vm->dir / "console.log", 15);
  spdlog::error("{}", message);
  return 2;
}

Status copy_out(const fs::path& from, const std::string& to) {
  if (to.empty()) return success();
  std::error_code ec;
  fs::path tmp = to + ".tmp";
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, to, ec);
  if (ec) return Status::fail(to + ": " + ec.message());
  return success();
}

// One node VM of the run with what it was given and how its wait ended.
struct LabNode {
  LabIdentity id;
  std::vector<GuestForward> forwards;
  std::vector<HostForward> host_forwards;
  Vm vm;
  Clock::time_point start;
  bool exported = false;   // it exported its status
  bool timed_out = false;  // the run's deadline stopped it
};

// One run of the lab, as its stages share it: the wires between the VMs, the identities and
// forwards each gets, the VMs themselves, and how the wait for the nodes ended.
struct LabRun {
  ~LabRun() {
    for (const auto& c : cables)
      for (int fd : c) ::close(fd);
  }
  LabRun(const LabRun&) = delete;
  LabRun& operator=(const LabRun&) = delete;
  LabRun(const LabOptions& options, fs::path dir)
      : o(options),
        run(std::move(dir)),
        deadline(start + std::chrono::seconds(options.timeout_s)),
        target_id(options.target),
        network_boot(!options.pxe_tree.empty()) {
    nodes.resize(options.nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].id = options.nodes[i];
  }

  const LabOptions& o;
  const fs::path run;
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline;
  ImageBoot boot;
  // The cables between the leaf and the nodes: cable i·rails + k joins leaf port i·rails + k to
  // node i's rail cabled_rail(k), [0] the node's end, [1] the leaf's. Held until the run ends.
  std::vector<std::array<int, 2>> cables;
  LabIdentity target_id;
  std::vector<GuestForward> target_forwards;
  std::vector<HostForward> target_host_forwards;
  bool slurm = false;             // the recipe names a Slurm controller
  std::vector<std::string> base;  // the kernel command line every VM starts from
  Vm target;
  std::vector<LabNode> nodes;  // in the order of --node; the faults of one node go to the first
  const bool network_boot;     // the nodes boot from the PXE tree
  const Vm* blame = nullptr;   // whose logs explain a stage's error

  bool several() const { return nodes.size() > 1; }
  long seconds() const { return std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count(); }
  std::string relay_to(int port) const {
    return "cmd:" + shell_quote({o.relay_program}) + " qemu --relay 127.0.0.1:" + std::to_string(port);
  }
};

// The image to boot, and the cables of the rails.
Status find_image_and_wires(LabRun& r) {
  auto boot = image_boot(r.o.image_dir);
  if (!boot.ok()) return boot.status();
  r.boot = std::move(*boot);
  for (std::size_t k = 0; r.o.storage_target && k < r.nodes.size() * static_cast<std::size_t>(r.o.rails); ++k) {
    std::array<int, 2> ends{-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends.data()) != 0)
      return Status::fail(std::string("socketpair: ") + std::strerror(errno));
    r.cables.push_back(ends);
  }
  r.base = r.boot.cmdline;
  r.base.push_back("railyard.qemu=1");
  r.base.insert(r.base.end(), r.o.append.begin(), r.o.append.end());
  return success();
}

// The lab's Slurm cluster: the controller on the target, reached over the management
// networks through the host (lab_slurm.h); without a target, nothing answers there.
Status wire_slurm(LabRun& r) {
  const LabOptions& o = r.o;
  r.slurm = o.recipe && !o.recipe->slurm.controller.empty();
  if (!r.slurm) return success();
  auto controller = lab_slurm_controller(o.recipe->slurm);
  if (!controller.ok()) {
    std::cout << "railyard qemu: " << controller.error() << "; the nodes' Slurm steps find no controller" << std::endl;
    return success();
  }
  std::string key = o.munge_key;
  if (key.empty()) {
    auto fresh = fresh_munge_key();
    if (!fresh.ok()) return fresh.status();
    key = *fresh;
  }
  std::string at = controller->address + ":" + std::to_string(controller->port);
  for (auto& n : r.nodes) n.id.files.push_back({kLabMungeKey, key, 0400});
  if (!o.storage_target) {
    for (auto& n : r.nodes) n.forwards.push_back({at, "cmd:/bin/false"});
    return success();
  }
  auto ctl = free_port();
  if (!ctl.ok()) return ctl.status();
  LabSlurmCluster cluster{o.target.hostname, *controller, {}, o.slurm_drained};
  for (const auto& n : r.nodes) cluster.nodes.push_back(n.id.hostname);
  // --slurm-topology: the controller places the nodes in scalable units as their reports say.
  cluster.topology = o.slurm_topology;
  r.target_id.files.push_back({kLabMungeKey, key, 0400});
  r.target_id.files.push_back({kLabSlurmConf, lab_slurm_conf(o.recipe->slurm, cluster)});
  if (!cluster.drained_reason.empty()) r.target_id.files.push_back({kLabSlurmDrain, lab_slurm_drain(cluster)});
  if (cluster.topology) {
    const std::string url = std::string("http://") + kLabCollectorGuestHost + "/api/v1/topology\n";
    r.target_id.files.push_back({kLabTopologyConf, lab_topology_placeholder()});
    r.target_id.files.push_back({kLabTopologyMarker, url});
    for (auto& n : r.nodes) n.id.files.push_back({kLabTopologyMarker, url});
  }
  r.target_host_forwards.push_back({*ctl, controller->port});
  std::string to_controller = r.relay_to(*ctl);
  if (o.faults.controller_outage_s) {
    // Each connection is its own relay process: the first one marks the outage's start
    // (none left from an earlier run in the same directory).
    std::error_code gone;
    fs::remove(r.run / "controller-outage", gone);
    to_controller += " --relay-outage " + shell_quote({(r.run / "controller-outage").string()}) + " --relay-outage-s " +
                     std::to_string(*o.faults.controller_outage_s);
    std::cout << "railyard qemu: controller-outage (lab fault): the nodes' connections to the Slurm controller "
              << "are closed at once for " << *o.faults.controller_outage_s << " s from the first one" << std::endl;
  }
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    auto slurmd = free_port();
    if (!slurmd.ok()) return slurmd.status();
    r.target_forwards.push_back(
        {lab_slurmd_guest_address(static_cast<int>(i)) + ":" + std::to_string(kSlurmdPort), r.relay_to(*slurmd)});
    r.nodes[i].forwards.push_back({at, to_controller});
    r.nodes[i].host_forwards.push_back({*slurmd, kSlurmdPort});
  }
  std::cout << "railyard qemu: Slurm controller " << at << " on " << o.target.hostname << " (slurmctld, cluster "
            << o.recipe->slurm.cluster << ")" << std::endl;
  return success();
}

// The storage target, which doubles as the rails' leaf: port i·rails + k is cabled to node
// i's rail k (but for swap-rails), the storage NIC sits beside port 0 (lab_leaf.h).
Status boot_target(LabRun& r) {
  const LabOptions& o = r.o;
  if (!o.storage_target) return success();
  Vm& target = r.target;
  target.dir = r.run / "target";
  target.spec.name = "target";
  target.spec.wiring = RailWiring::leaf;
  const int ports = o.rails * static_cast<int>(r.nodes.size());
  target.spec.rail_macs = leaf_port_macs(o.target.management_mac, ports);
  target.spec.storage_mac = rail_macs(o.target.management_mac, 1).front();
  for (const auto& c : r.cables) target.spec.rail_wires.push_back(c[1]);
  std::vector<std::string> cmdline = r.base;
  cmdline.push_back("railyard.role=storage-target");
  LabIdentity id = r.target_id;
  target.spec.forwards = r.target_forwards;
  target.spec.host_forwards = r.target_host_forwards;
  if (o.recipe) {
    std::vector<NodeEntry> cabled;
    for (const auto& n : r.nodes)
      cabled.push_back(n.id.node.value_or(NodeEntry{n.id.hostname, n.id.management_mac, {}, "", ""}));
    std::optional<LabRoutedLeaf> routed;
    if (o.recipe->routing.mode == RoutingMode::bgp_unnumbered && o.target.node) {
      // Routed rails: the leaf routes, so the storage NIC is cabled to a port of rail 0's
      // leaf rather than plugged into the node's segment.
      target.spec.storage_port_mac = leaf_port_macs(o.target.management_mac, ports + 1).back();
      routed = LabRoutedLeaf{*o.target.node, target.spec.storage_port_mac, "enp0s" + std::to_string(kStorageSlot)};
    }
    auto leaf = lab_leaf_files(*o.recipe, cabled, target.spec.rail_macs, o.faults, routed);
    if (!leaf.ok()) return leaf.status();
    for (const auto& f : *leaf) id.files.push_back({f.path, f.content});
    cmdline.push_back("modules_load=" + join(lab_target_modules(*o.recipe, routed.has_value()), ","));
  }
  // A late storage server: the VM boots with the nodes, since it is also the rails' leaf
  // switch, and holds its NVMe-oF targets until then (qemu-target-delay in the lab overlay).
  if (o.target_delay_s > 0) cmdline.push_back("railyard.qemu.target_delay=" + std::to_string(o.target_delay_s));
  if (auto s = prepare(target, o, id, r.boot, false, cmdline, kTargetPorts); !s.ok()) return s;
  r.blame = &target;
  if (auto s = launch(target); !s.ok()) return s;
  r.blame = nullptr;
  std::cout << "railyard qemu: storage target " << o.target.hostname << " booting (" << target.dir.string() << ")"
            << std::endl;
  if (o.target_delay_s > 0)
    std::cout << "railyard qemu: its NVMe-oF targets come up " << o.target_delay_s
              << " s after it powers on (target-delay); the leaf it carries is up from the start" << std::endl;
  for (const auto& s : o.faults.shaped)
    std::cout << "railyard qemu: " << (s.loss_pct > 0 ? "rail-loss" : "rail-slow")
              << " (lab fault): the leaf's port to " << s.node << " rail " << s.rail << ": netem " << s.netem()
              << ", both ways" << std::endl;
  return success();
}

// The nodes: each cabled to the target's leaf ports, or to a hub with no one on it; the
// first paused at power-on while the links-down fault takes its NICs' links down.
Status boot_nodes(LabRun& r) {
  const LabOptions& o = r.o;
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    LabNode& n = r.nodes[i];
    Vm& node = n.vm;
    const bool first = i == 0;
    // The first node's files are where a one-node run keeps them; the others' say whose.
    node.dir = first ? r.run / "node" : r.run / ("node-" + n.id.hostname);
    node.spec.name = first ? "node" : "node" + std::to_string(i + 1);
    if (o.storage_target) {
      node.spec.wiring = RailWiring::cables;
      node.spec.rail_wires.assign(static_cast<std::size_t>(o.rails), -1);
      for (int k = 0; k < o.rails; ++k) {
        int rail = cabled_rail(o.faults, n.id.hostname, first, k);
        node.spec.rail_wires[static_cast<std::size_t>(rail)] =
            r.cables[i * static_cast<std::size_t>(o.rails) + static_cast<std::size_t>(k)][0];
      }
    }
    node.spec.forwards = n.forwards;
    node.spec.host_forwards = n.host_forwards;
    const auto& links_down = o.faults.links_down;
    if (first && !links_down.empty()) {
      node.spec.qmp_socket = (r.run / "node.qmp").string();
      node.spec.paused = true;
    }
    std::vector<std::string> cmdline = r.base;
    if (first && !o.faults.pause_storms.empty()) {
      // The lab's DCB stand-in counts received pauses at storm rate on these NICs (by MAC).
      std::vector<std::string> storms;
      for (int k : o.faults.pause_storms)
        storms.push_back(rail_macs(n.id.management_mac, o.rails)[static_cast<std::size_t>(k)] + "@" +
                         std::to_string(kLabPauseStormPps));
      cmdline.push_back("railyard_lab_qos.pause_storm=" + join(storms, ","));
    }
    if (auto s = prepare(node, o, n.id, r.boot, r.network_boot, cmdline, kNodePorts); !s.ok()) return s;
    n.start = Clock::now();
    r.blame = &node;
    if (auto s = launch(node); !s.ok()) return s;
    if (first && !links_down.empty()) {
      std::vector<nlohmann::json> cmds;
      for (int k : links_down) cmds.push_back(qmp_set_link(rail_nic_id(node.spec, k), false));
      cmds.push_back({{"execute", "cont"}});
      if (auto s = qmp_run(node.spec.qmp_socket, cmds, 30000); !s.ok()) return s;
    }
    r.blame = nullptr;
    std::cout << "railyard qemu: node " << n.id.hostname << " booting" << (r.network_boot ? " from the network" : "")
              << " with " << o.rails << " rails (" << node.dir.string() << ")" << std::endl;
  }
  return success();
}

// The VMs boot side by side: the nodes' agents retry their NVMe-oF connections while the
// target comes up (selftest.storage_wait_s). A node is done when it has exported its status
// (its last export) or its QEMU has exited; a target that failed or stopped meanwhile is the
// harness's failure, not the nodes'. Every VM is stopped at the end.
Status wait_for_nodes(LabRun& r) {
  Vm& target = r.target;
  auto stop_nodes = [&] {
    for (auto& n : r.nodes) n.vm.process->stop();
  };
  bool target_ready = !r.o.storage_target;
  // The status is the last thing a node exports: what follows is its shutdown, about 13 s
  // under TCG, which nothing reads. Only a benchmark run waits for it, since the guest sends
  // its boot's critical chain once the boot has finished (org.railyard.chain); a
  // network-booted guest was given the image's command line only and never powers off.
  const auto& append = r.o.append;
  const bool chain_wanted =
      !r.network_boot && std::find(append.begin(), append.end(), "railyard.qemu.bench=1") != append.end();
  std::vector<bool> done(r.nodes.size(), false);
  while (Clock::now() < r.deadline) {
    if (!target_ready && complete_json(target.dir / "target.json")) {
      auto state = nlohmann::json::parse(read_text(target.dir / "target.json"), nullptr, false);
      if (state.value("result", "") != "ready") {
        stop_nodes();
        r.blame = &target;
        return Status::fail("the storage target failed: " + read_text(target.dir / "target.json"));
      }
      target_ready = true;
      std::cout << "railyard qemu: storage target ready after " << r.seconds() << " s" << std::endl;
    }
    if (!target_ready && !target.process->running()) {
      stop_nodes();
      r.blame = &target;
      return Status::fail("the storage target stopped (" + target.process->how_it_ended() + ")");
    }
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
      LabNode& n = r.nodes[i];
      if (done[i]) continue;
      bool running = n.vm.process->running();
      n.exported = complete_json(n.vm.dir / "status.json");
      if (!n.exported && running) continue;
      done[i] = true;
      if (n.exported && chain_wanted)
        n.vm.process->wait_until(std::min(r.deadline, Clock::now() + std::chrono::seconds(20)));
      n.vm.process->stop();
      if (r.several())
        std::cout << "railyard qemu: " << n.id.hostname << " done after " << r.seconds() << " s"
                  << (n.exported ? "" : " (it exported no status)") << std::endl;
    }
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (auto& n : r.nodes) n.timed_out = !n.exported && n.vm.process->running();
  if (!target_ready) {
    // Whatever the nodes then report (their leaf, their storage) follows from this: the
    // target's last console lines say where its boot stood.
    std::cout << "railyard qemu: the storage target was not ready when the nodes finished or stopped (" << r.seconds()
              << " s); its last console lines (" << (target.dir / "console.log").string() << "):\n"
              << tail_lines(target.dir / "console.log", 25) << std::flush;
  }
  stop_nodes();
  if (target.process) target.process->stop();
  return success();
}

// What the join units (slurmd, munge) said: the other half of why a node did not join.
void print_join_journal(const fs::path& file) {
  std::vector<std::string> lines = split(read_text(file), '\n');
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  const std::size_t shown = std::min<std::size_t>(lines.size(), 15);
  if (shown > 0)
    std::cout << "  the join units' journal, last " << shown << " lines (" << file.parent_path().filename().string()
              << "/join-journal.txt):\n";
  for (std::size_t i = lines.size() - shown; i < lines.size(); ++i) std::cout << "    " << lines[i] << "\n";
}

// What the controller made of a node, as the node asked it once its agent was done.
Status print_slurm(const LabRun& r, const LabNode& n, const nlohmann::json& status) {
  const fs::path answer_file = n.vm.dir / "slurm.txt";
  std::string answer = read_text(answer_file);
  const std::string& host = n.id.hostname;
  SlurmNodeState state = parse_scontrol_node(answer);
  if (!state.known)
    std::cout << "  Slurm: the controller does not know " << host << ": "
              << (answer.empty() ? "the node asked nothing" : trim(answer)) << "\n";
  else
    std::cout << "  Slurm: the controller has " << host << " " << state.state
              << (state.reason.empty() ? "" : " (" + state.reason + ")") << "\n";
  if (state.known && !status.is_discarded() && status.value("slurm_uptime_s", nlohmann::json()).is_number() &&
      status.value("agent_start_uptime_s", nlohmann::json()).is_number()) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f",
                  status["slurm_uptime_s"].get<double>() - status["agent_start_uptime_s"].get<double>());
    std::cout << "  agent start to the controller's " << state.state << ": at most " << seconds
              << " s of guest uptime (asked once the agent was done)\n";
  }
  if (r.o.slurm_out.empty()) return success();
  if (!fs::exists(answer_file)) return Status::fail("--slurm-out: the node exported no answer of the controller");
  return copy_out(answer_file, r.o.slurm_out);
}

// Where --report-out puts a node's report: the file itself, or HOST.json in it with several.
std::string report_destination(const LabRun& r, const LabNode& n) {
  if (r.o.report_out.empty() || !r.several()) return r.o.report_out;
  return (fs::path(r.o.report_out) / (n.id.hostname + ".json")).string();
}

// A node's verdict from what it exported, printed with its figures; its exit code.
int conclude_node(LabRun& r, LabNode& n) {
  const LabOptions& o = r.o;
  const Vm& node = n.vm;
  double node_s = std::chrono::duration<double>(Clock::now() - n.start).count();
  if (!r.several())
    if (auto s = copy_out(node.dir / "console.log", o.console_log); !s.ok()) spdlog::error("{}", s.error());
  LabVerdict v = judge_lab_run(read_text(node.dir / "report.json"), read_text(node.dir / "status.json"),
                               read_text(node.dir / "journal.txt"));
  const std::string who = r.several() ? n.id.hostname + ": " : "";
  if (v.exit_code == 2) {
    std::string why = who + v.summary;
    if (n.timed_out) why += ": timed out after " + std::to_string(o.timeout_s) + " s";
    else if (!node.process->how_it_ended().empty()) why += " (QEMU " + node.process->how_it_ended() + ")";
    return harness_error(why, &node);
  }
  if (auto s = copy_out(node.dir / "report.json", report_destination(r, n)); !s.ok())
    return harness_error(s.error(), nullptr);
  std::cout << "railyard qemu: " << who << v.summary << "\n";
  for (const auto& d : v.detail) std::cout << "  " << d << "\n";
  auto status = nlohmann::json::parse(read_text(node.dir / "status.json"), nullptr, false);
  if (v.exit_code == 1 && !status.is_discarded() && status.value("joined", true) == false)
    print_join_journal(node.dir / "join-journal.txt");
  if (r.slurm)
    if (auto s = print_slurm(r, n, status); !s.ok())
      return harness_error(s.error(), fs::exists(node.dir / "slurm.txt") ? nullptr : &node);
  if (!status.is_discarded() && status.contains("report_uptime_s")) {
    const auto& result = status.value("result_uptime_s", nlohmann::json());
    std::cout << "  boot to result: " << (result.is_number() ? result.dump() : "?") << " s of guest uptime (report "
              << "exported at " << status["report_uptime_s"].dump() << " s); node VM " << static_cast<long>(node_s)
              << " s; whole run " << r.seconds() << " s\n";
  }
  return v.exit_code;
}

// Every node's verdict; the run's exit code is the worst of them (2 over 1 over 0).
int conclude(LabRun& r) {
  if (r.several() && !r.o.report_out.empty()) {
    std::error_code ec;
    fs::create_directories(r.o.report_out, ec);
    if (ec) return harness_error("--report-out " + r.o.report_out + ": " + ec.message(), nullptr);
  }
  int worst = 0;
  for (auto& n : r.nodes) worst = std::max(worst, conclude_node(r, n));
  return worst;
}

// The run as stages, each failing with the harness's exit code 2 and the logs of the VM it
// blames; then the nodes' verdicts.
int run_in(const LabOptions& o, const fs::path& run) {
  LabRun r(o, run);
  for (Status (*stage)(LabRun&) : {find_image_and_wires, wire_slurm, boot_target, boot_nodes, wait_for_nodes})
    if (Status s = stage(r); !s.ok()) return harness_error(s.error(), r.blame);
  return conclude(r);
}

}  // namespace

int run_lab(const LabOptions& o) {
  if (o.nodes.empty()) return harness_error("no node to boot", nullptr);
  fs::path run = o.run_dir;
  bool temporary = run.empty();
  if (temporary) {
    std::string templ = (fs::temp_directory_path() / "railyard-qemu.XXXXXX").string();
    if (!::mkdtemp(templ.data())) return harness_error(templ + ": cannot create the run directory", nullptr);
    run = templ;
  }
  int rc = run_in(o, run);
  std::error_code ec;
  // The initrd copies are the image again: never keep them. The rest is kept on a harness
  // error (logs to look at) or when the caller named the directory.
  std::vector<fs::path> vms{run / "node", run / "target"};
  for (const auto& n : o.nodes) vms.push_back(run / ("node-" + n.hostname));
  for (const auto& vm : vms) fs::remove(vm / "initrd.img", ec);
  if (temporary && rc != 2) fs::remove_all(run, ec);
  else if (temporary) spdlog::info("the run's files are in {}", run.string());
  return rc;
}

}  // namespace railyard
