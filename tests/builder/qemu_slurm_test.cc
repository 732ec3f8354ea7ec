// The lab's Slurm cluster (builder/qemu/lab_slurm.cc): where its controller may stand, the
// controller's slurm.conf, drain reasons it can be seeded with, the run's munge key.
#include <doctest/doctest.h>

#include "qemu/lab_slurm.h"

using namespace railyard;

namespace {

SlurmSpec lab_slurm(const std::string& controller = "10.0.2.101") {
  SlurmSpec s;
  s.controller = controller;
  s.cluster = "lab";
  s.partition = "lab";
  return s;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the lab controller stands at a free address of QEMU's user network") {
  auto c = lab_slurm_controller(lab_slurm());
  REQUIRE(c.ok());
  CHECK(c->address == "10.0.2.101");
  CHECK(c->port == 6817);
  auto p = lab_slurm_controller(lab_slurm("10.0.2.50:7817"));
  REQUIRE(p.ok());
  CHECK(p->port == 7817);
  for (std::string taken :
       {"10.0.2.2", "10.0.2.3", "10.0.2.15", "10.0.2.100", "10.0.2.102", "10.0.2.109", "10.0.2.255"}) {
    auto t = lab_slurm_controller(lab_slurm(taken));
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().find("join.slurm.controller " + taken + " is taken") == 0);
  }
  for (std::string elsewhere : {"slurmctld.mgmt.example", "198.18.0.100", "10.0.3.101"}) {
    auto e = lab_slurm_controller(lab_slurm(elsewhere));
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().find("an IPv4 address of QEMU's user network, 10.0.2.0/24") != std::string::npos);
  }
}

TEST_CASE("the lab controller's slurm.conf: configless, the node reached through the host; a drain once it is up") {
  LabSlurmCluster c{"lab-target01", {"10.0.2.101", 6817}, {"lab-node01"}, ""};
  std::string conf = lab_slurm_conf(lab_slurm(), c);
  CHECK(has_line(conf, "ClusterName=lab"));
  CHECK(has_line(conf, "SlurmctldHost=lab-target01(10.0.2.101)"));
  CHECK(has_line(conf, "SlurmctldPort=6817"));
  CHECK(has_line(conf, "SlurmctldParameters=enable_configless"));
  CHECK(has_line(conf, "NodeName=lab-node01 NodeAddr=10.0.2.102 Port=6818 CPUs=1 RealMemory=1 State=UNKNOWN"));
  CHECK(has_line(conf, "PartitionName=lab Nodes=lab-node01 Default=YES State=UP"));
  CHECK(conf.find("TopologyPlugin") == std::string::npos);
  // --slurm-topology: topology/tree, whose topology.conf slurmctld needs from the start.
  c.topology = true;
  CHECK(has_line(lab_slurm_conf(lab_slurm(), c), "TopologyPlugin=topology/tree"));
  CHECK(lab_topology_placeholder().find("SwitchName") == std::string::npos);
  c.topology = false;

  c.drained_reason = "railyard: rail.2.link (a previous boot)";
  conf = lab_slurm_conf(lab_slurm(), c);
  // Not State=DRAIN in slurm.conf, which every reconfigure applies again: the target drains
  // the nodes with scontrol once slurmctld is up, from kLabSlurmDrain.
  CHECK(has_line(conf, "NodeName=lab-node01 NodeAddr=10.0.2.102 Port=6818 CPUs=1 RealMemory=1 State=UNKNOWN"));
  CHECK(lab_slurm_drain(c) == "lab-node01\nrailyard: rail.2.link (a previous boot)\n");
  SlurmSpec no_partition = lab_slurm();
  no_partition.partition.clear();
  CHECK(has_line(lab_slurm_conf(no_partition, c), "PartitionName=lab Nodes=lab-node01 Default=YES State=UP"));

  // Two lab nodes: each reached at an address of its own, one partition holding both.
  c.nodes.push_back("lab-node02");
  CHECK(lab_slurm_drain(c) == "lab-node01,lab-node02\nrailyard: rail.2.link (a previous boot)\n");
  c.drained_reason.clear();
  CHECK(lab_slurm_drain(c).empty());
  conf = lab_slurm_conf(lab_slurm(), c);
  CHECK(has_line(conf, "NodeName=lab-node01 NodeAddr=10.0.2.102 Port=6818 CPUs=1 RealMemory=1 State=UNKNOWN"));
  CHECK(has_line(conf, "NodeName=lab-node02 NodeAddr=10.0.2.103 Port=6818 CPUs=1 RealMemory=1 State=UNKNOWN"));
  CHECK(has_line(conf, "PartitionName=lab Nodes=lab-node01,lab-node02 Default=YES State=UP"));
}

TEST_CASE("a seeded drain reason is one printable line") {
  CHECK(lab_drain_reason_error("railyard: rail.2.link") == "");
  CHECK(lab_drain_reason_error("") == "empty");
  CHECK(lab_drain_reason_error("bad \"quote\"").find("without '\"'") != std::string::npos);
  CHECK(lab_drain_reason_error("two\nlines").find("printable ASCII") == 0);
  CHECK(lab_drain_reason_error(std::string(201, 'x')) == "201 characters; at most 200");
}

TEST_CASE("each lab run has a munge key of its own, as mungekey makes them") {
  auto a = fresh_munge_key(), b = fresh_munge_key();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->size() == 1024);
  CHECK(*a != *b);
}
