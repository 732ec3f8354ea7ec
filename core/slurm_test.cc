// Slurm as the agent speaks to it (slurm.h): the recipe's values it accepts, the drop-in and
// client configuration it renders, the features it sets, and scontrol's view of a node read back.
#include "slurm.h"

#include <doctest/doctest.h>

#include "join_gate.h"

using namespace railyard;

TEST_CASE("slurm: controllers, cluster and partition names, feature templates") {
  for (const char* ok : {"ctl", "slurmctld.cluster.example", "10.0.0.1", "10.0.0.1:6817", "ctl:7000"}) {
    CAPTURE(ok);
    CHECK_FALSE(check_slurm_controller(ok));
  }
  for (const char* bad : {"", ":6817", "ctl:", "ctl:0", "ctl:65536", "ctl:x", "10.0.0.300", "ctl;rm -rf /", "a b",
                          "ctl\nSlurmUser=root"}) {
    CAPTURE(bad);
    CHECK(check_slurm_controller(bad));
  }
  CHECK(parse_slurm_controller("ctl").port == 6817);
  CHECK(parse_slurm_controller("10.0.0.1:7000").host == "10.0.0.1");
  CHECK(parse_slurm_controller("10.0.0.1:7000").port == 7000);

  CHECK_FALSE(check_slurm_name("gpu-h100_a.1"));
  for (const char* bad : {"", "a b", "a,b", "a\n", "a=b"}) CHECK(check_slurm_name(bad));

  for (const char* ok : {"railyard", "rails{rails}", "gpus{gpus}", "{rdma}", "r{rails}g{gpus}", "roce.v2"}) {
    CAPTURE(ok);
    CHECK_FALSE(check_slurm_feature(ok));
  }
  for (const char* bad : {"", "a,b", "a|b", "a&b", "a b", "{rdma}x", "{nics}", "a*", "[a]"}) {
    CAPTURE(bad);
    auto e = check_slurm_feature(bad);
    REQUIRE(e);
    CHECK(e->find("letters, digits") != std::string::npos);
  }
}

TEST_CASE("slurm: configless slurmd's drop-in sorts before the join gate and gates nothing itself") {
  SlurmSpec s;
  s.controller = "10.0.0.1";
  std::string text = slurmd_dropin_text(s);
  CHECK(text.find("Environment=\"SLURMD_OPTIONS=--conf-server 10.0.0.1:6817\"") != std::string::npos);
  CHECK(resets_path_conditions(text));  // the package's ConditionPathExists=/etc/slurm/slurm.conf
  // slurmd exits when the controller does not answer its configuration request; systemd
  // starts it again, also after the agent's wait for the unit is over.
  CHECK(text.find("\n[Service]\n") < text.find("\nRestart=on-failure\nRestartSec=5\n"));
  CHECK(text.find("\nRestart=on-failure\nRestartSec=5\n") != std::string::npos);
  std::string dropin = kSlurmdDropin, gate = join_gate_path(kSlurmdUnit);
  CHECK(dropin.substr(0, dropin.rfind('/')) == gate.substr(0, gate.rfind('/')));
  CHECK(dropin.substr(dropin.rfind('/')) < gate.substr(gate.rfind('/')));  // applied first: the gate stays
  CHECK(munge_tmpfiles_text().find("\nz /etc/munge/munge.key 0400 munge munge -\n") != std::string::npos);
  CHECK(munge_tmpfiles_text().find("z /etc/munge ") == std::string::npos);
}

TEST_CASE("slurm: the agent's client configuration names the controller only") {
  SlurmSpec s;
  s.controller = "ctl.lab:7000";
  s.cluster = "lab";
  std::string conf = slurm_client_conf(s);
  CHECK(conf.find("\nClusterName=lab\nSlurmctldHost=ctl.lab\nSlurmctldPort=7000\n") != std::string::npos);
  CHECK(conf.find("NodeName") == std::string::npos);
}

TEST_CASE("slurm: features expand from what the self-test found, each once") {
  SlurmSpec s;
  s.features = {"railyard", "rails{rails}", "gpus{gpus}", "{rdma}", "railyard"};
  SlurmFacts f{4, 8, {"mlx5_0", "mlx5_1"}};
  CHECK(slurm_features(s, f) == std::vector<std::string>{"railyard", "rails4", "gpus8", "mlx5_0", "mlx5_1"});
  s.features.clear();
  CHECK(slurm_features(s, f).empty());
  CHECK(
      scontrol_features_argv("node01", {"a", "b"}) ==
      std::vector<std::string>{"scontrol", "update", "NodeName=node01", "AvailableFeatures=a,b", "ActiveFeatures=a,b"});
}

// What 22.05's `scontrol show node NODE --oneliner` prints, cut to the fields read.
std::string oneliner(const std::string& state, const std::string& started, const std::string& tail = "") {
  return "NodeName=n01 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 AvailableFeatures=railyard,rails4 "
         "ActiveFeatures=railyard,rails4 Gres=(null) NodeAddr=10.0.0.11 State=" +
         state + " ThreadsPerCore=1 Partitions=gpu,debug BootTime=None SlurmdStartTime=" + started +
         " CfgTRES=cpu=1,mem=1M,billing=1 CapWatts=n/a ExtSensorsTemp=n/s" + tail + "\n";
}

TEST_CASE("slurm: the node's state, reason and partitions as scontrol prints them") {
  auto never = parse_scontrol_node(oneliner("UNKNOWN", "None"));
  CHECK(never.known);
  CHECK_FALSE(never.responding);
  CHECK(never.reason.empty());
  CHECK(never.partitions == std::vector<std::string>{"gpu", "debug"});
  CHECK(never.features == std::vector<std::string>{"railyard", "rails4"});

  auto idle = parse_scontrol_node(oneliner("IDLE", "2026-12-02T23:17:32"));
  CHECK(idle.responding);
  CHECK_FALSE(idle.drained);
  CHECK(idle.state == "IDLE");

  // Drained before its slurmd ever ran: no NOT_RESPONDING yet, but never started.
  auto early =
      parse_scontrol_node(oneliner("IDLE+DRAIN", "None", " Reason=railyard: rail.3.link [root@2026-12-02T23:17:32]"));
  CHECK(early.drained);
  CHECK_FALSE(early.responding);
  CHECK(early.reason == "railyard: rail.3.link");
  CHECK(drained_by_railyard(early));

  CHECK_FALSE(parse_scontrol_node(oneliner("IDLE+NOT_RESPONDING", "2026-12-02T23:17:32")).responding);
  CHECK_FALSE(parse_scontrol_node(oneliner("DOWN", "2026-12-02T23:17:32")).responding);

  auto theirs = parse_scontrol_node(
      oneliner("IDLE+DRAIN", "2026-12-02T23:17:32", " Reason=PSU swap, ticket 4411 [ops@2026-12-01T09:00:00]"));
  CHECK(theirs.responding);
  CHECK(theirs.reason == "PSU swap, ticket 4411");
  CHECK_FALSE(drained_by_railyard(theirs));
  CHECK_FALSE(drained_by_railyard(parse_scontrol_node(oneliner("IDLE", "x", " Reason=railyard: stale"))));

  CHECK_FALSE(parse_scontrol_node("Node n01 not found\n").known);
  CHECK_FALSE(parse_scontrol_node("").known);
  CHECK(scontrol_show_node_argv("n01") == std::vector<std::string>{"scontrol", "show", "node", "n01", "--oneliner"});
  CHECK(scontrol_drain_argv("n", "railyard: x") ==
        std::vector<std::string>{"scontrol", "update", "NodeName=n", "State=DRAIN", "Reason=railyard: x"});
}
