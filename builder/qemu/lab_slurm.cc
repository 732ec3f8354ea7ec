#include "lab_slurm.h"

#include <openssl/rand.h>

#include "net.h"
#include "slurm.h"
#include "text.h"

namespace railyard {

namespace {

// QEMU user networking's own addresses in 10.0.2.0/24 (network, gateway, DNS, SMB, its DHCP
// pool from .15, broadcast), the lab collector's and the slurmd forwards'.
bool taken_in_user_network(std::uint32_t host) {
  return host <= 4 || (host >= 15 && host < 32) || host == 100 || (host >= 102 && host < 102 + kLabMaxNodes) ||
         host == 255;
}

}  // namespace

std::string lab_slurmd_guest_address(int node_index) { return "10.0.2." + std::to_string(102 + node_index); }

Outcome<LabSlurmController> lab_slurm_controller(const SlurmSpec& slurm) {
  SlurmController c = parse_slurm_controller(slurm.controller);
  auto ip = parse_ipv4(c.host);
  auto net = parse_cidr("10.0.2.0/24");
  std::string allowed =
      "the lab stands its controller up at an IPv4 address of QEMU's user network, 10.0.2.0/24, "
      "other than .0–.4, .15–.31 (QEMU's), .100 (the collector), .102–.109 (the nodes' slurmd) and .255";
  if (!ip || !net || !net->contains(*ip))
    return Outcome<LabSlurmController>::fail("join.slurm.controller " + slurm.controller + ": " + allowed);
  if (taken_in_user_network(ip->value & 0xff))
    return Outcome<LabSlurmController>::fail("join.slurm.controller " + slurm.controller + " is taken: " + allowed);
  return LabSlurmController{c.host, c.port};
}

std::string lab_drain_reason_error(const std::string& reason) {
  if (reason.empty()) return "empty";
  if (reason.size() > 200) return std::to_string(reason.size()) + " characters; at most 200";
  for (char c : reason)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '#')
      return "printable ASCII without '\"' or '#' only (one line of the target's lab-slurm-drain)";
  return "";
}

std::string lab_slurm_conf(const SlurmSpec& slurm, const LabSlurmCluster& c) {
  std::string partition = slurm.partition.empty() ? "lab" : slurm.partition;
  std::string nodes;
  for (std::size_t i = 0; i < c.nodes.size(); ++i)
    nodes += "NodeName=" + c.nodes[i] + " NodeAddr=" + lab_slurmd_guest_address(static_cast<int>(i)) +
             " Port=" + std::to_string(kSlurmdPort) + " CPUs=1 RealMemory=1 State=UNKNOWN\n";
  return "# The railyard lab's Slurm controller (railyard qemu --storage-target; builder/qemu/lab_slurm.h).\n"
         "# The node fetches this file from here (configless): it holds none of its own.\n"
         "ClusterName=" +
         slurm.cluster + "\nSlurmctldHost=" + c.controller_hostname + "(" + c.controller.address +
         ")\nSlurmctldPort=" + std::to_string(c.controller.port) +
         "\nSlurmctldParameters=enable_configless\n"
         "SlurmUser=slurm\n"
         "AuthType=auth/munge\n"
         "StateSaveLocation=/var/lib/slurm/slurmctld\n"
         "SlurmdSpoolDir=/var/lib/slurm/slurmd\n"
         "SlurmctldPidFile=/run/slurmctld.pid\n"
         "SlurmdPidFile=/run/slurmd.pid\n"
         "ProctrackType=proctrack/linuxproc\n"
         "TaskPlugin=task/none\n"
         "ReturnToService=2\n" +
         std::string(c.topology
                         ? "# The scalable units from the rails' LLDP: topology.conf as the collector serves it.\n"
                           "TopologyPlugin=topology/tree\n"
                         : "") +
         "# The nodes as the controller reaches them: through the host, to each one's slurmd.\n" + nodes +
         "PartitionName=" + partition + " Nodes=" + join(c.nodes, ",") + " Default=YES State=UP\n";
}

std::string lab_slurm_drain(const LabSlurmCluster& c) {
  return c.drained_reason.empty() ? "" : join(c.nodes, ",") + "\n" + c.drained_reason + "\n";
}

std::string lab_topology_placeholder() {
  return "# railyard qemu: no scalable units yet; the collector's topology (GET /api/v1/topology) replaces this\n";
}

Outcome<std::string> fresh_munge_key() {
  std::string key(1024, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1)
    return Outcome<std::string>::fail("no random bytes for the lab's munge key (OpenSSL RAND_bytes failed)");
  return key;
}

}  // namespace railyard
