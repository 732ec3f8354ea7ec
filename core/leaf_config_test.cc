// The switch side of the fabric (core/leaf_config.cc): one leaf per rail, each port's node,
// and the intent every port must hold.
#include <doctest/doctest.h>

#include "leaf_config.h"
#include "recipe_loader.h"

using namespace railyard;

namespace {

Recipe two_rails() {
  Recipe r = default_recipe();
  r.name = "sku";
  r.fabric.vlan = 100;
  r.lldp.expect_system = "leaf-r{rail}";
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24"};
  return r;
}

std::vector<NodeEntry> nodes() {
  return {{"n01", "3c:ec:ef:00:00:01", {"198.18.0.11", "198.18.1.11"}, "", "swp1"},
          {"n02", "3c:ec:ef:00:00:02", {"198.18.0.12", "198.18.1.12"}, "", "swp2"}};
}

}  // namespace

TEST_CASE("leaf-config: rail i of every node on leaf i, each node on its own port") {
  LeafPlan p = plan_leaves(two_rails(), nodes());
  REQUIRE(p.ok());
  REQUIRE(p.leaves.size() == 2);
  CHECK(p.leaves[0].name == "leaf-r0");
  CHECK(p.leaves[0].file == "leaf-r0.json");
  CHECK(p.leaves[0].rails == std::vector<int>{0});
  REQUIRE(p.leaves[1].ports.size() == 2);
  CHECK(p.leaves[1].ports[1].node == "n02");
  CHECK(p.leaves[1].ports[1].port == "swp2");
  CHECK(p.leaves[1].ports[1].node_address == "198.18.1.12");
}

TEST_CASE("leaf-config: the JSON of a leaf holds the fabric the hosts are configured for") {
  Recipe r = two_rails();
  auto j = to_json(plan_leaves(r, nodes()).leaves[0], r);
  CHECK(j["schema"] == 1);
  CHECK(j["leaf"] == "leaf-r0");
  CHECK(j["pfc"]["priorities"] == nlohmann::json::array({3}));
  CHECK(j["pfc"]["enable"] == "0x08");
  CHECK(j["pfc"]["watchdog"]["detection_ms"] == 200);
  CHECK(j["pfc"]["watchdog"]["restoration_ms"] == 400);
  CHECK(j["ecn"]["priority"] == 3);
  CHECK(j["ecn"]["min_kb"] == 150);
  CHECK(j["roce"]["dscp"] == 26);
  CHECK(j["cnp"] == nlohmann::json{{"dscp", 48}, {"priority", 6}});
  CHECK(j["dscp_to_priority"].size() == 64);
  CHECK(j["dscp_to_priority"][26] == 3);
  CHECK(j["vlans"] == nlohmann::json::array({100}));
  CHECK(j["mtu"] == 9216);
  CHECK(j["min_frame_size"] == 9022);
  CHECK(j["ports"][0]["expected_neighbor"]["system_name"] == "n01");
  r.fabric.ecn = Requirement::off;
  CHECK(to_json(plan_leaves(r, nodes()).leaves[0], r)["ecn"].is_null());
}

TEST_CASE("leaf-config: two nodes on one port of a leaf is a problem; unnamed leaves are rail-N") {
  auto same = nodes();
  same[1].lldp_port = "swp1";
  LeafPlan p = plan_leaves(two_rails(), same);
  CHECK_FALSE(p.ok());
  CHECK(p.problems.front() ==
        "leaf-r0: port swp1 is expected by more than one node (n02 among them); give each node its "
        "own lldp_port in the inventory");
  Recipe unnamed = two_rails();
  unnamed.lldp.expect_system = "";
  LeafPlan q = plan_leaves(unnamed, nodes());
  REQUIRE(q.ok());
  CHECK(q.leaves[1].file == "rail-1.json");
  CHECK(to_json(q.leaves[1], unnamed)["leaf"].is_null());
}
