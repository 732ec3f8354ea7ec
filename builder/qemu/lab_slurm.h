// The lab's Slurm cluster. When the image's recipe joins Slurm ([join.slurm]), the storage
// target VM of `railyard qemu --storage-target` also runs Debian's slurmctld (the same image
// carries it) as the lab's controller, with a munge key made for the run in both VMs'
// identity overlays. The node reaches the controller over its management network, where a
// cluster's Slurm traffic goes, not over the rails it is proving: the two VMs have separate
// QEMU user networks, joined on the host by forwards. The node's connections to the recipe's
// controller address reach the target's slurmctld; the target's connections to
// lab_slurmd_guest_address(i) reach node i's slurmd, the address the controller knows it by.
#pragma once

#include <string>
#include <vector>

#include "outcome.h"
#include "recipe.h"

namespace railyard {

// In the target's user network: node i's slurmd (its NodeAddr on the controller), 10.0.2.102
// for the first node, then .103 and on, one per lab node (at most kLabMaxNodes).
inline constexpr int kLabMaxNodes = 8;
std::string lab_slurmd_guest_address(int node_index);
inline constexpr int kSlurmdPort = 6818;
// Where the lab controller's configuration goes in the target's identity overlay: Debian's
// slurmctld.service starts only where it exists, so only the target runs a controller.
inline constexpr const char* kLabSlurmConf = "etc/slurm/slurm.conf";
// The overlay's key, made munge's at boot by the image's tmpfiles line (core/slurm.h).
inline constexpr const char* kLabMungeKey = "etc/munge/munge.key";
// With --slurm-topology (and --collector), the controller runs topology/tree: its
// topology.conf starts with no switches, and the target's qemu-topology (overlays/lab-qemu)
// keeps it as the collector's GET /api/v1/topology serves it, reconfiguring slurmctld at each
// change, as a cluster's controller would from a timer. The marker holds that URL, in every
// VM's overlay: a joined node exports the controller's `scontrol show topology` once it is
// placed there.
inline constexpr const char* kLabTopologyConf = "etc/slurm/topology.conf";
inline constexpr const char* kLabTopologyMarker = "etc/railyard/lab-topology";
// --slurm-drained: the nodes and the reason the controller drains them with once slurmctld is
// up (`scontrol update`, by the target's qemu-slurm-drain), as a failed earlier boot left
// them. Not State=DRAIN in slurm.conf: a reconfigure (--slurm-topology's) applies that again.
inline constexpr const char* kLabSlurmDrain = "etc/railyard/lab-slurm-drain";
// topology.conf before the first fetch: slurmctld refuses a missing file under topology/tree.
std::string lab_topology_placeholder();

// The recipe's controller (join.slurm.controller) as the lab can stand it up: an IPv4
// address of QEMU's user network, 10.0.2.0/24, that neither QEMU (gateway, DNS, its DHCP
// pool) nor the lab (collector, slurmd forward) uses. An error says why it cannot.
struct LabSlurmController {
  std::string address;
  int port = 0;
};
Outcome<LabSlurmController> lab_slurm_controller(const SlurmSpec& slurm);

struct LabSlurmCluster {
  std::string controller_hostname;  // the target VM's host name: slurmctld runs only there
  LabSlurmController controller;
  std::vector<std::string> nodes;  // the nodes' host names, their NodeNames, in lab order
  std::string drained_reason;      // "": unknown until they register; else drained at start (kLabSlurmDrain)
  bool topology = false;           // topology/tree, its topology.conf from the collector (kLabTopologyConf)
};

// The lab controller's /etc/slurm/slurm.conf: configless (the node's slurmd fetches it), the
// recipe's cluster name and partition, the lab's nodes, Debian's paths; topology/tree when
// cluster.topology.
std::string lab_slurm_conf(const SlurmSpec& slurm, const LabSlurmCluster& cluster);

// kLabSlurmDrain's text, when cluster.drained_reason is set: the nodes as one Slurm host list
// on the first line, the reason on the second.
std::string lab_slurm_drain(const LabSlurmCluster& cluster);

// Why `reason` cannot stand as the lab's drain reason (kLabSlurmDrain), or "".
std::string lab_drain_reason_error(const std::string& reason);

// A munge key for one lab run: 1024 random bytes, as mungekey(8) makes.
Outcome<std::string> fresh_munge_key();

}  // namespace railyard
