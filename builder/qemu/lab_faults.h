// The faults `railyard qemu --fault NAME[=ARG]` injects into a lab run, each one a way a
// real rack goes wrong that the node's self-test must catch before it joins, or (a controller
// outage) that the node must ride out and still join.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "outcome.h"
#include "recipe.h"

namespace railyard {

// rail-loss=NODE:R:PCT and rail-slow=NODE:R:MBIT: the leaf's port to NODE's rail R loses PCT%
// of the frames, or carries at most MBIT Mb/s, both ways (netem on the port and on an ifb the
// port's ingress is redirected to).
struct RailShaping {
  std::string node;  // a lab node's host name
  int rail = 0;
  int loss_pct = 0;   // rail-loss
  int rate_mbit = 0;  // rail-slow
  // netem's arguments: "loss random 5%", "rate 1mbit".
  std::string netem() const;
};

struct LabFaults {
  std::vector<int> links_down;                 // link-down=R: the rail's NIC has no link from power-on
  std::vector<int> pause_storms;               // pause-storm=R: the rail's NIC receives pause frames at storm rate
  std::optional<std::pair<int, int>> swapped;  // swap-rails=[NODE:]A,B: the cables of rails A and B cross at the leaf
  std::string swapped_node;                    // swap-rails' NODE; "": the first node
  std::optional<int> leaf_pfc;                 // leaf-pfc=P: the leaf advertises PFC on priority P instead
  bool no_lldp = false;                        // no-lldp: the leaf sends no LLDP
  // Routed rails (routing.mode = "bgp-unnumbered"):
  std::vector<int> leaf_bgp_down;    // leaf-bgp-down=R: rail R's leaf runs no bgpd
  std::vector<int> leaf_refuse_asn;  // leaf-refuse-asn=R: rail R's leaf expects another AS of the node
  bool tenant_leak = false;          // tenant-leak: the target answers for another VNI's address
  // controller-outage=S: the node's connections to the lab's Slurm controller are closed at
  // once for S seconds from the first one (a controller restarting as the rack comes up).
  std::optional<int> controller_outage_s;
  std::vector<RailShaping> shaped;  // rail-loss, rail-slow: a leaf port of one node's rail
  bool any_routed() const { return !leaf_bgp_down.empty() || !leaf_refuse_asn.empty() || tenant_leak; }
  bool any_leaf() const { return swapped || leaf_pfc || no_lldp || any_routed() || !shaped.empty(); }
};

// The rate the lab's DCB stand-in counts received pauses at for pause-storm=R, far above any
// sane selftest.pause_storm_pps.
inline constexpr int kLabPauseStormPps = 20000;
// controller-outage=S: S at most this, within the lab recipe's join.slurm.register_wait_s.
inline constexpr int kLabControllerOutageMaxS = 20;

// The faults there are, one line each, for --help and errors.
std::string lab_fault_help();

// Adds one --fault value to `faults`; a bad name or argument says what is allowed. `rails`
// bounds the rail numbers.
Status add_lab_fault(const std::string& spec, int rails, LabFaults& faults);

// Whether the image's recipe has what the faults break: routed rails for leaf-bgp-down,
// leaf-refuse-asn and tenant-leak, and a [tenant] network for tenant-leak. A fault that
// could not happen is refused before any VM boots: a run that "passes" with it would prove
// nothing.
Status check_lab_faults(const LabFaults& faults, const Recipe& recipe);

// The rail of node `node` (a host name; `first`: the run's first node) that the leaf's port
// for its rail `port` is cabled to: the identity, but for the node swap-rails names.
int cabled_rail(const LabFaults& faults, const std::string& node, bool first, int port);

}  // namespace railyard
