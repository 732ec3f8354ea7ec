// The far end of every rail (checks/lldp.cc): who the cable reaches, and what its port
// advertises against what the rail is.
#include <doctest/doctest.h>

#include "checks/lldp.h"
#include "support/verify_node.h"

namespace {

// Rails 0..2 expect leaf-r0..2, port swp7 (this node's port on every leaf).
void rail_leaves(Recipe& r) {
  r.lldp.expect_system = "leaf-r{rail}";
  r.lldp.expect_port = "swp7";
}

}  // namespace

TEST_CASE("rail.N.lldp: the planned leaf and port pass; expectations come from the recipe's templates") {
  Node n(rail_leaves);
  CHECK(n.rail(1).lldp_system == "leaf-r1");
  CHECK(n.rail(1).lldp_port == "swp7");
  auto r = n.check("rail.1.lldp");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "system leaf-r1, port swp7");
  CHECK(r.observed == "leaf-r1 port swp7 (chassis 0c:42:a1:00:00:01)");
  for (const char* name : {"rail.1.lldp_pfc", "rail.1.lldp_mtu", "rail.1.lldp_vlan"}) {
    auto c = n.check(name);
    CAPTURE(text(c));
    CHECK(c.status == CheckStatus::pass);
  }
}

TEST_CASE("rail.N.lldp: two swapped cables name both rails and what each hears") {
  Node n(rail_leaves);
  std::swap(n.lldp.on["ens0f0"], n.lldp.on["ens1f0"]);
  auto r0 = n.check("rail.0.lldp");
  CAPTURE(text(r0));
  CHECK(r0.status == CheckStatus::fail);
  CHECK(r0.observed == "leaf-r1 port swp7 (chassis 0c:42:a1:00:00:01)");
  CHECK(contains(r0.detail, "system 'leaf-r1', want 'leaf-r0'"));
  CHECK(contains(r0.detail,
                 "this cable reaches rail 1's leaf (leaf-r1), and rail 1 (ens1f0) hears rail 0's leaf leaf-r0 "
                 "port swp7: the cables of rails 0 and 1 are swapped"));
  auto r1 = n.check("rail.1.lldp");
  CHECK(r1.status == CheckStatus::fail);
  CHECK(contains(r1.detail, "the cables of rails 0 and 1 are swapped"));
  CHECK(n.check("rail.2.lldp").status == CheckStatus::pass);
}

TEST_CASE("rail.N.lldp: the right leaf on another port is a different finding") {
  Node n(rail_leaves);
  n.lldp.on["ens2f0"].neighbor->port_id = "swp8";
  auto r = n.check("rail.2.lldp");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.detail, "port 'swp8', want 'swp7': the cable reaches the right leaf on another port"));
}

TEST_CASE("rail.N.lldp: an inventory node's lldp_port overrides the recipe's") {
  Recipe recipe = test::recipe();
  rail_leaves(recipe);
  recipe.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24"};
  NodeEntry node = test::node({"198.18.0.11", "198.18.1.11", "198.18.2.11"});
  node.lldp_port = "swp{rail}-n3";
  Plan p = make_plan(three_rails(), recipe, node);
  REQUIRE(p.ok());
  CHECK(p.rails[2].lldp_port == "swp2-n3");
  CHECK(p.rails[2].lldp_system == "leaf-r2");
}

TEST_CASE("rail.N.lldp: nothing heard warns, or fails when fabric.lldp.required") {
  Node n(rail_leaves);
  n.lldp.on.erase("ens0f0");
  auto r = n.check("rail.0.lldp");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "nothing heard on ens0f0 in 35 s");
  CHECK(contains(r.detail, "firmware runs its own LLDP agent"));
  // What the leaf advertises is then unknown: those checks skip, pointing at rail.0.lldp.
  auto pfc = n.check("rail.0.lldp_pfc");
  CHECK(pfc.status == CheckStatus::skip);
  CHECK(pfc.detail == "see rail.0.lldp");

  Node strict([](Recipe& r) {
    rail_leaves(r);
    r.lldp.required = true;
  });
  strict.lldp.on.erase("ens0f0");
  CHECK(strict.check("rail.0.lldp").status == CheckStatus::fail);
  CHECK_FALSE(node_passes(strict.verify_all()));
}

TEST_CASE("rail.N.lldp: frames that are not valid LLDP say why") {
  Node n(rail_leaves);
  LldpHeard& h = n.lldp.on["ens0f0"];
  h.neighbor.reset();
  h.invalid = "LLDP TLV 3 (TTL) at byte 30: length 3, expected 2";
  h.frames = 4;
  auto r = n.check("rail.0.lldp");
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "4 LLDP frame(s), none valid: LLDP TLV 3 (TTL) at byte 30: length 3, expected 2");
}

TEST_CASE("rail.N.lldp: a second neighbour on one rail fails and names both, whatever fabric.lldp.required says") {
  Node n(rail_leaves);
  LldpNeighbor spoofer = *n.lldp.on["ens1f0"].neighbor;
  spoofer.chassis_id = "02:00:00:00:00:66";
  spoofer.port_id = "eth0";
  spoofer.system_name = "leaf-r1";
  n.lldp.on["ens1f0"].others = {spoofer};
  auto r = n.check("rail.1.lldp");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed ==
        "2 LLDP neighbours: leaf-r1 port swp7 (chassis 0c:42:a1:00:00:01); "
        "leaf-r1 port eth0 (chassis 02:00:00:00:00:66)");
  CHECK(contains(r.detail, "a hub or unmanaged switch between the NIC and the leaf, a loop, or a host sending LLDP"));
  CHECK_FALSE(node_passes(n.verify_all()));
  // What the first one advertises is still checked.
  CHECK(n.check("rail.1.lldp_pfc").status == CheckStatus::pass);
}

TEST_CASE("rail.N.lldp: a rail flooded with LLDP fails and says the rate, even when a leaf was heard") {
  Node n(rail_leaves);
  n.lldp.on["ens2f0"].flood_per_s = 4987;
  n.lldp.on["ens2f0"].frames = 12468;
  auto r = n.check("rail.2.lldp");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "LLDP flood: 4987 frames a second on ens2f0");
  CHECK(contains(r.detail, "reads at most 50 a second and the kernel drops the rest"));
  CHECK(contains(r.detail, "(heard: leaf-r2 port swp7 (chassis 0c:42:a1:00:00:02))"));

  LldpHeard& invalid_only = n.lldp.on["ens0f0"];
  invalid_only.neighbor.reset();
  invalid_only.invalid = "LLDP TLV 3 (TTL) at byte 30: length 3, expected 2";
  invalid_only.flood_per_s = 3000;
  auto invalid = n.check("rail.0.lldp");
  CHECK(invalid.status == CheckStatus::fail);  // not the warning of frames that are only invalid
  CHECK(invalid.observed == "LLDP flood: 3000 frames a second on ens0f0");
}

TEST_CASE("rail.N.lldp_pfc: the leaf pausing another priority fails and says what it breaks") {
  Node n(rail_leaves);
  n.lldp.on["ens1f0"].neighbor->pfc->enabled = 0x10;
  auto r = n.check("rail.1.lldp_pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.expected == "PFC enable 0x08 (priority 3)");
  CHECK(r.observed == "PFC enable 0x10 (priority 4), capability 8, not willing");
  CHECK(contains(r.detail, "RoCE on priority 3 is dropped under congestion"));
  n.lldp.on["ens1f0"].neighbor->pfc.reset();
  auto absent = n.check("rail.1.lldp_pfc");
  CHECK(absent.status == CheckStatus::warn);
  CHECK(contains(absent.observed, "no PFC configuration TLV"));
}

TEST_CASE("rail.N.lldp_mtu and lldp_vlan: the leaf port must carry the rail's frames and VLAN") {
  Node n(rail_leaves);
  n.lldp.on["ens0f0"].neighbor->max_frame_size = 1518;
  auto mtu = n.check("rail.0.lldp_mtu");
  CAPTURE(text(mtu));
  CHECK(mtu.status == CheckStatus::fail);
  CHECK(mtu.expected == "maximum frame size >= 9022");  // 9000 + 18 + 4 for the VLAN tag
  CHECK(contains(mtu.detail, "9000 + 18 + 4 for the VLAN tag = 9022"));

  n.lldp.on["ens0f0"].neighbor->vlan_names = {{300, "other"}};
  auto vlan = n.check("rail.0.lldp_vlan");
  CAPTURE(text(vlan));
  CHECK(vlan.status == CheckStatus::fail);
  CHECK(vlan.observed == "port VLAN 1, VLAN 300 'other'");
  CHECK(contains(vlan.detail, "does not carry the rail's VLAN 200"));
}

TEST_CASE("the LLDP checks skip where nothing listened, and are not planned with wait_s = 0") {
  Node n(rail_leaves);
  Plan one = n.plan;
  auto results = verify(VerifyContext{one, n.now, n.kernel, n.rdma, n.clock, nullptr});
  for (const auto& r : results)
    if (r.id.kind == CheckKind::rail_lldp) CHECK(r.status == CheckStatus::skip);
  Node off([](Recipe& r) { r.lldp.wait_s = 0; });
  for (const auto& c : off.plan.checks) CHECK(c.id.kind != CheckKind::rail_lldp);
}

TEST_CASE("the report's lldp: each rail's expectation and neighbour") {
  Node n(rail_leaves);
  n.lldp.on.erase("ens2f0");
  auto j = checks::lldp_report(n.plan, n.lldp);
  REQUIRE(j.size() == 3);
  CHECK(j[0]["ifname"] == "ens0f0");
  CHECK(j[0]["expected"]["system"] == "leaf-r0");
  CHECK(j[0]["neighbor"]["system_name"] == "leaf-r0");
  CHECK(j[0]["neighbor"]["pfc"]["enabled"] == "0x08");
  CHECK(j[0]["neighbor"]["vlans"][0]["vid"] == 200);
  CHECK(j[2]["neighbor"].is_null());
  CHECK(j[2]["frames"] == 0);
  CHECK(j[0]["other_neighbors"] == nlohmann::ordered_json::array());
  CHECK(j[0]["flood_per_s"] == 0);
  CHECK(j[0]["neighbor"]["other_tlvs_left_out"] == 0);
}

TEST_CASE("the report's lldp: every neighbour heard on a rail, a flood's rate, and frames past 2^31") {
  Node n(rail_leaves);
  LldpHeard& h = n.lldp.on["ens0f0"];
  LldpNeighbor other = *h.neighbor;
  other.chassis_id = "02:00:00:00:00:66";
  h.others = {other};
  h.flood_per_s = 148'800'000;  // 100 Gb/s of the smallest frames
  h.frames = 5'000'000'000;     // half a minute of them
  auto j = checks::lldp_report(n.plan, n.lldp);
  CHECK(j[0]["frames"] == 5'000'000'000);
  CHECK(j[0]["flood_per_s"] == 148'800'000);
  REQUIRE(j[0]["other_neighbors"].size() == 1);
  CHECK(j[0]["other_neighbors"][0]["chassis_id"] == "02:00:00:00:00:66");
}

namespace {

// gpu-a01 (the test node) is in su1; expect "{unit}-leaf{rail}": su1-leaf0..2.
void unit_leaves(Recipe& r) {
  r.lldp.expect_system = "{unit}-leaf{rail}";
  r.lldp.expect_port = "swp7";
  r.topology.units = {{"su1", "gpu-a[01-32]"}, {"su2", "gpu-b[01-32]"}};
}

}  // namespace

TEST_CASE("rails.unit: every rail on the node's own unit's leaves passes") {
  Node n(unit_leaves);
  CHECK(n.plan.unit == "su1");
  CHECK(n.plan.units == std::vector<std::string>{"su1", "su2"});
  CHECK(n.rail(2).lldp_system == "su1-leaf2");
  auto r = n.check("rails.unit");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "every rail on su1's leaves");
}

TEST_CASE("rails.unit: a cable in another unit's leaf fails, naming the rail and whose leaf it reached") {
  Node n(unit_leaves);
  n.lldp.on["ens1f0"].neighbor->system_name = "su2-leaf1";
  auto r = n.check("rails.unit");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.observed, "rail 1 reaches su2-leaf1"));
  CHECK(contains(r.observed, "su2's rail 1 leaf"));
  CHECK(contains(r.detail, "gpu-a01 is in su1 ([fabric.topology])"));
  // A leaf no unit expects is said so, too.
  n.lldp.on["ens1f0"].neighbor->system_name = "spare-leaf";
  r = n.check("rails.unit");
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.observed, "no unit's leaf"));
}

TEST_CASE("rails.unit: a rail that hears nothing warns, or fails when fabric.lldp.required") {
  Node n(unit_leaves);
  n.lldp.on.erase("ens2f0");
  auto r = n.check("rails.unit");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "no LLDP neighbour on rail(s) 2");
  Node strict([](Recipe& rc) {
    unit_leaves(rc);
    rc.lldp.required = true;
  });
  strict.lldp.on.erase("ens2f0");
  CHECK(strict.check("rails.unit").status == CheckStatus::fail);
}

TEST_CASE("rails.unit: planned only when fabric.lldp names {unit}; a node in no unit is a plan problem") {
  Node plain(rail_leaves);
  CHECK(plain.plan.unit.empty());
  auto planned = [](const Plan& p, const std::string& name) {
    return std::any_of(p.checks.begin(), p.checks.end(), [&](const PlannedCheck& c) { return c.id.name() == name; });
  };
  CHECK_FALSE(planned(plain.plan, "rails.unit"));
  Node in_unit(unit_leaves);
  CHECK(planned(in_unit.plan, "rails.unit"));
  Recipe r = test::recipe();
  unit_leaves(r);
  r.topology.units = {{"su2", "gpu-b[01-32]"}};
  Plan p = make_plan(three_rails(), r, test::node({"198.18.0.11", "198.18.1.11", "198.18.2.11"}));
  CHECK_FALSE(p.ok());
  CHECK(contains(p.problems.front(), "gpu-a01 is in no [fabric.topology] unit"));
}
