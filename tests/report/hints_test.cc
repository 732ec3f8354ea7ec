// Hints (builder/report/hints.cc): check kinds as the fleet groups them, and a hint for
// every check the planner can make, so that no failure is shown without its usual cause.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "builder/temp_dir.h"
#include "report/hints.h"

using namespace railyard;

namespace {

CheckResult failed(const std::string& name, const std::string& observed = "", const std::string& detail = "") {
  CheckResult c;
  c.id = CheckId::parse(name);
  c.status = CheckStatus::fail;
  c.observed = observed;
  c.detail = detail;
  return c;
}

}  // namespace

TEST_CASE("report hints: every check the fixtures' plans hold has a hint when it fails") {
  std::set<std::string> kinds;
  for (const char* fixture : {"hgx-8x8", "gpu4-cx6dx", "gpu8-nic4", "storage-node", "qemu-virt", "gpu-nic-sys"}) {
    auto plan = nlohmann::json::parse(
        test::read_all(std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/golden/" + fixture + "/plan.json"));
    for (const auto& c : plan["checks"]) kinds.insert(CheckId::parse(c["name"].get<std::string>()).pattern());
  }
  CHECK(kinds.size() >= 25);
  for (const auto& kind : kinds) {
    CAPTURE(kind);
    std::string name = kind;
    for (char& ch : name)
      if (ch == '*') ch = '0';
    CHECK(hint_for(failed(name)) != "");
  }
}

TEST_CASE("report hints: the usual causes the operators asked for") {
  CHECK(hint_for(failed("rail.2.pfc")).find("DCBX") != std::string::npos);
  CHECK(hint_for(failed("rail.0.pcie_link", "8.0 GT/s PCIe x8", "downtrained: the device can do 16.0 GT/s PCIe x16"))
            .find("reseat") != std::string::npos);
  CHECK(hint_for(failed("gpu.3.pcie_link")).find("riser") != std::string::npos);
  CHECK(hint_for(failed("rail.1.rdma_port", "mlx5_1 port 1 DOWN")).find("not ACTIVE") != std::string::npos);
  CHECK(hint_for(failed("rail.1.rdma_port", "no RDMA device")).find("RDMA driver") != std::string::npos);
  CHECK(hint_for(failed("rail.4.roce_v2_gid")).find("VLAN") != std::string::npos);
  CHECK(hint_for(failed("nvmeof.0.connected")).find("NQN") != std::string::npos);
  CHECK(hint_for(failed("rail.0.pause_storm", "rx 3/s, tx 50000/s", "this NIC is sending a pause storm"))
            .find("sends pause frames") != std::string::npos);
  CHECK(hint_for(failed("rail.0.pause_storm", "rx 50000/s, tx 0/s", "the switch pauses this NIC continuously"))
            .find("a peer stuck sending pauses") != std::string::npos);
  CHECK(hint_for(failed("rail.5.no_default_route")).find("DHCP") != std::string::npos);
  CHECK(hint_for(failed("apply.rail 0 (ens1f0np0): PFC")).find("refused") != std::string::npos);
  CHECK(hint_for(failed("something.new")) == "");
  // A failure that only follows from another says which.
  CHECK(hint_for(failed("nvmeof.0.namespace_read", "no controller")).find("follows from nvmeof.0.connected") == 0);
  CHECK(hint_for(failed("rail.1.rdma_write", "no RoCE v2 GID")).find("follows from rail.1.roce_v2_gid") == 0);
  CHECK(hint_for(failed("rail.1.speed", "unknown")) == "follows from rail.1.link: no speed without a link");
  CHECK(hint_for(failed("rail.1.speed", "200000 Mb/s")).find("cable") != std::string::npos);
}

TEST_CASE("report hints: failures that follow from a rail's link being down say so") {
  std::vector<CheckResult> all = {
      failed("rail.7.link", "down"),         failed("rail.7.rdma_port", "mlx5_0 port 1 DOWN"),
      failed("rail.7.rdma_write", "failed"), failed("rails.cross_rdma_write", "failed"),
      failed("rail.5.pfc", "pfc_en 0x00"),   failed("rail.7.pcie_link", "8.0 GT/s PCIe x16")};
  CHECK(hint_for(all[0], all).find("reseat") != std::string::npos);
  CHECK(hint_for(all[1], all) == "follows from rail.7.link: the link is down");
  CHECK(hint_for(all[2], all) == "follows from rail.7.link: the link is down");
  CHECK(hint_for(all[3], all) == "follows from rail.7.link: a rail's link is down");
  CHECK(hint_for(all[4], all).find("DCBX") != std::string::npos);  // another rail: its own cause
  CHECK(hint_for(all[5], all).find("downtrained") != std::string::npos);
  // Rail 17's checks do not follow from rail 1's link.
  std::vector<CheckResult> other = {failed("rail.1.link", "down"), failed("rail.17.rdma_write", "failed")};
  CHECK(hint_for(other[1], other).find("PFC/ECN") != std::string::npos);
}

TEST_CASE("report hints: GPUs that never came during the wait for devices explain gpu.count") {
  std::vector<CheckResult> all = {
      failed("devices.ready", "0 GPUs, 4 RDMA NICs after 30.0 s",
             "still missing at the bound (selftest.device_wait_s): 1 GPU wanted, 0 present"),
      failed("gpu.count", "0")};
  CHECK(hint_for(all[0], all).find("not seated") != std::string::npos);
  CHECK(hint_for(all[1], all) == "follows from devices.ready: the GPUs never appeared during the wait for devices");
  auto roots = root_causes(all);
  REQUIRE(roots.size() == 1);
  CHECK(roots[0]->name() == "devices.ready");
  // A wait that missed only a NIC explains nothing about the GPUs.
  all[0].detail = "still missing at the bound (selftest.device_wait_s): 4 rail NICs wanted, 3 with an RDMA device";
  CHECK(hint_for(all[1], all).find("follows from") == std::string::npos);
}

TEST_CASE("report hints: root causes are the failures that follow from no other failure") {
  std::vector<CheckResult> all = {failed("rail.0.speed", "unknown"),
                                  failed("rail.0.link", "down"),
                                  failed("rail.0.rdma_write", "failed"),
                                  failed("rails.cross_rdma_write", "failed"),
                                  failed("rail.1.rdma_write", "no RoCE v2 GID"),
                                  failed("rail.1.roce_v2_gid", "none"),
                                  failed("nvmeof.0.namespace_read", "no controller"),
                                  failed("rail.2.pfc", "pfc_en 0x00")};
  auto e = explain(all[0], all);
  REQUIRE(e.follows_from);
  CHECK(e.follows_from->name() == "rail.0.link");
  std::vector<std::string> roots;
  for (const auto* c : root_causes(all)) roots.push_back(c->name());
  // The speed leads the list but follows from the link; the namespace read's cause (the
  // connection) did not fail here, so it stands as its own. The link explains three
  // failures, the GID one: they come first.
  CHECK(roots ==
        std::vector<std::string>{"rail.0.link", "rail.1.roce_v2_gid", "nvmeof.0.namespace_read", "rail.2.pfc"});
  std::vector<CheckResult> pfc_first = {failed("rail.5.pfc", "pfc_en 0x00"), failed("rail.3.link", "down"),
                                        failed("rail.3.speed", "unknown")};
  CHECK(root_causes(pfc_first).front()->name() == "rail.3.link");
  // Passing and non-required checks are never causes.
  CheckResult ok = failed("rail.3.pfc");
  ok.status = CheckStatus::pass;
  CHECK(root_causes({ok}).empty());
}

TEST_CASE("report hints: planning problems") {
  CHECK(hint_for_problem("the recipe wants 8 rails; 4 RDMA NIC(s) found").find("RDMA NICs are missing") !=
        std::string::npos);
  CHECK(hint_for_problem("no RDMA NIC found for the rails").find("RDMA NICs are missing") != std::string::npos);
  CHECK(hint_for_problem("hardware.rails names 'ens9', which is not on this node").find("interface") !=
        std::string::npos);
  CHECK(hint_for_problem("GPU 0000:1a:00.0 could not be pinned to a rail").find("slot") != std::string::npos);
  CHECK(hint_for_problem("anything else") != "");
}

TEST_CASE("report hints: an LLDP flood and a second neighbour on a rail get their own causes, not cabling") {
  auto flood = hint_for(failed("rail.2.lldp", "LLDP flood: 4987 frames a second on ens2f0"));
  CHECK(flood.find("floods it with LLDP") != std::string::npos);
  CHECK(flood.find("tcpdump") != std::string::npos);
  auto two = hint_for(failed("rail.2.lldp", "2 LLDP neighbours: leaf2 swp3 (chassis aa); rogue eth0 (chassis bb)"));
  CHECK(two.find("more than one switch port answers") != std::string::npos);
  CHECK(hint_for(failed("rail.2.lldp", "leaf9 swp3 (chassis aa)")).find("cabling") != std::string::npos);
}
