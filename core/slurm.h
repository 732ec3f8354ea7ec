// Slurm as a railyard node speaks to it ([join.slurm]): the drop-in that runs slurmd
// configless from the recipe's controller, the client configuration the agent's own
// scontrol reads (never the node's slurm.conf, which configless slurmd fetches), the
// features a node advertises, and the node's state as scontrol prints it. Pure: no file is
// touched and nothing is run here (firstboot/join does that).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recipe.h"

namespace railyard {

// Drains railyard makes carry this prefix, and only such drains are resumed on a pass (as
// LBNL NHC resumes only its own): an operator's drain for maintenance stays.
inline constexpr const char* kSlurmReasonPrefix = "railyard:";
// The agent's client configuration: SlurmctldHost and ClusterName only, enough for scontrol
// to reach the controller before slurmd has fetched the cluster's configuration.
inline constexpr const char* kSlurmClientConf = "/run/railyard/slurm.conf";
inline constexpr const char* kSlurmdUnit = "slurmd.service";
inline constexpr const char* kMungeUnit = "munge.service";
inline constexpr int kSlurmctldPort = 6817;

// "host", "host:port" or "a.b.c.d[:port]"; nullopt when `v` is one.
std::optional<std::string> check_slurm_controller(const std::string& v);
// A cluster or partition name: letters, digits, "_", "-" and "."; 1 to 64 characters.
std::optional<std::string> check_slurm_name(const std::string& v);
// A feature, with {rails} and {gpus} for counts, or exactly "{rdma}" for one feature per
// rail RDMA device: letters, digits, "_", "-" and "." otherwise (Slurm's constraint
// operators, blanks and commas never).
std::optional<std::string> check_slurm_feature(const std::string& v);

struct SlurmController {
  std::string host;
  int port = kSlurmctldPort;
};
SlurmController parse_slurm_controller(const std::string& v);  // for a checked value

// The drop-in the build gives slurmd.service (before the join gate's, which sorts after it):
// configless slurmd, `--conf-server` the recipe's controller, and the package's
// ConditionPathExists=/etc/slurm/slurm.conf reset, since the image holds none; and
// Restart=on-failure every kSlurmdRestartSec, since slurmd exits when it cannot fetch it.
inline constexpr int kSlurmdRestartSec = 5;
inline constexpr const char* kSlurmdDropin = "/etc/systemd/system/slurmd.service.d/50-railyard-slurm.conf";
std::string slurmd_dropin_text(const SlurmSpec& s);
// systemd-tmpfiles' line that gives munge's key, delivered per node as root's, to munge
// (mode 0400) before munge.service starts; the build writes it to kMungeTmpfiles.
inline constexpr const char* kMungeKey = "/etc/munge/munge.key";
inline constexpr const char* kMungeTmpfiles = "/usr/lib/tmpfiles.d/railyard-munge.conf";
std::string munge_tmpfiles_text();

std::string slurm_client_conf(const SlurmSpec& s);

// What the node has, for the feature templates.
struct SlurmFacts {
  int rails = 0;
  int gpus = 0;
  std::vector<std::string> rdma;  // the rails' RDMA devices
};
// The features, expanded, in order, each once.
std::vector<std::string> slurm_features(const SlurmSpec& s, const SlurmFacts& f);

// The node as `scontrol show node NODE --oneliner` prints it (22.05): "NodeName=n01 ...
// State=IDLE+DRAIN ... Partitions=gpu ... SlurmdStartTime=None ... Reason=railyard: rail.3.link
// [root@2026-12-02T23:17:32]" (the reason last, with spaces, and who set it when). sinfo is
// not enough: it marks a node not responding ("*") only once a ping failed, so a node whose
// slurmd never ran looks as answering as one that registered.
struct SlurmNodeState {
  std::string state;        // "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING"; "" when unknown
  std::string reason;       // without the "[user@time]" suffix; "" for none
  bool known = false;       // the controller knows the node
  bool responding = false;  // slurmd registered since the controller started and answers
  bool drained = false;     // a DRAIN flag (draining or drained)
  std::vector<std::string> partitions;
  std::vector<std::string> features;  // AvailableFeatures
};
SlurmNodeState parse_scontrol_node(const std::string& output);
bool drained_by_railyard(const SlurmNodeState& s);
// The fleet sweep's drains (railyard fabric sweep, docs/sweep.md) begin so: only the sweep
// resumes them, once it passes the node; first boot's pass leaves them.
inline constexpr const char* kSweepReasonPrefix = "railyard: sweep ";
bool drained_by_sweep(const SlurmNodeState& s);

// The commands (argv) the agent runs, with SLURM_CONF=kSlurmClientConf in their environment.
std::vector<std::string> scontrol_show_node_argv(const std::string& node);
std::vector<std::string> scontrol_drain_argv(const std::string& node, const std::string& reason);
std::vector<std::string> scontrol_resume_argv(const std::string& node);
std::vector<std::string> scontrol_features_argv(const std::string& node, const std::vector<std::string>& features);

}  // namespace railyard
