// `railyard qemu`: a built image booted as a lab node on the lab topology (vm_command.h),
// with a storage target VM from the same image when asked, the outcome judged from what the
// guest hands back over virtio-serial (lab_result.h). Every VM runs under the run's deadline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lab_faults.h"
#include "lab_identity.h"
#include "recipe.h"

namespace railyard {

// The guest address that reaches `collector`: the lab recipe's [join] report_url host.
inline constexpr const char* kLabCollectorGuestAddress = "10.0.2.100:80";
inline constexpr const char* kLabCollectorGuestHost = "10.0.2.100";

struct LabOptions {
  std::string image_dir;
  int rails = 4;
  bool storage_target = false;
  int target_delay_s = 0;  // power the target on this long after the node (a late target)
  // The compute nodes, at least one: with several, each is cabled to ports of its own on every
  // rail's leaf. Faults that name no node (link-down, pause-storm, swap-rails) are the first's.
  std::vector<LabIdentity> nodes;
  LabIdentity target;
  LabFaults faults;
  // The image's recipe (/etc/railyard/recipe.toml in it): what the lab leaf is configured from.
  std::optional<Recipe> recipe;
  std::vector<std::string> append;  // more kernel command line words, for both VMs
  std::string pxe_tree;             // network boot the node from this TFTP tree (boot.ipxe)
  std::string collector;            // IPV4:PORT of a `railyard collect`; "" refuses report POSTs
  std::string relay_program;        // this railyard, run by QEMU per forwarded connection
  std::string report_out;           // copy of the node's report; with several nodes a directory: HOST.json each
  // The lab's Slurm cluster (lab_slurm.h), when the image's recipe joins Slurm:
  std::string slurm_out;      // one node: the controller's `scontrol show node NODE --oneliner` after the agent
  std::string munge_key;      // the cluster's munge key; "" = one made for the run
  std::string slurm_drained;  // the controller starts with the node drained for this reason
  // --slurm-topology: the controller runs topology/tree with the collector's topology.conf
  bool slurm_topology = false;
  std::string console_log;  // one node: a copy of its serial console
  std::string run_dir;      // kept as given; "" = a temporary one, removed afterwards
  int timeout_s = 1200;     // for the whole run, both VMs
  bool kvm = false;
  int memory_mib = 2048;
  int cpus = 2;
  std::string qemu = "qemu-system-x86_64";
};

// Returns the exit code, the worst of the nodes': 0 joined, 1 self-test failed, 2 harness
// error (no report, timeout, QEMU failed, bad input). Progress and the verdict go to stdout, errors to stderr.
int run_lab(const LabOptions& options);

}  // namespace railyard
