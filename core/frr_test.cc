// Routed rails (recipe [routing] bgp-unnumbered): the plan (planner.cc) and FRR's
// configuration on the node and on its leaves (frr.cc, leaf_config.cc).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "frr.h"
#include "leaf_config.h"
#include "plan.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

Recipe routed() {
  Recipe r = recipe("l3");
  r.addressing.subnets.clear();
  r.routing.mode = RoutingMode::bgp_unnumbered;
  r.routing.fabric_prefixes = {"198.18.0.0/16"};
  r.routing.leaf_asn = 65100;
  r.lldp.expect_system = "leaf-r{rail}";
  r.lldp.expect_port = "swp1";
  return r;
}

NodeEntry routed_node(std::int64_t asn = 4200000011) {
  NodeEntry n = node({"198.18.0.11", "198.18.1.11"});
  n.asn = asn;
  return n;
}

Plan routed_plan(const Recipe& r = routed(), const std::optional<NodeEntry>& n = routed_node()) {
  return make_plan(managed_server({{1, 1}, {1, 1}}), r, n);
}

const PlannedFile* file(const Plan& p, const std::string& path) {
  for (const auto& f : p.files)
    if (f.path == path) return &f;
  return nullptr;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("routed rails: /32 addresses, a table per rail, loose rp_filter, no router advertisements") {
  Plan p = routed_plan();
  REQUIRE(p.ok());
  REQUIRE(p.rails.size() == 2);
  CHECK(p.rails[0].address == "198.18.0.11/32");
  CHECK(p.rails[1].address == "198.18.1.11/32");
  CHECK(p.rails[0].table == 100);
  CHECK(p.rails[1].table == 101);
  auto has = [&](const RailPlan& r, const std::string& path, const std::string& value) {
    return std::any_of(r.sysctls.begin(), r.sysctls.end(),
                       [&](const Sysctl& s) { return s.path == path && s.value == value; });
  };
  CHECK(has(p.rails[1], "net/ipv4/conf/" + p.rails[1].netdev + "/rp_filter", "2"));
  CHECK(has(p.rails[1], "net/ipv6/conf/" + p.rails[1].netdev + "/accept_ra", "0"));
  CHECK(p.rails[0].route_probes == std::vector<std::string>{"198.18.0.1"});
  REQUIRE(p.bgp);
  CHECK(p.bgp->asn == 4200000011);
  CHECK_FALSE(p.bgp->shared_asn);
  CHECK(p.bgp->router_id == "198.18.0.11");
}

TEST_CASE("routed rails: the checks name BGP, its routes and the per-rail route lookup") {
  Recipe r = routed();
  NvmeofTarget t;
  t.address = "198.18.0.100";
  t.nqn = "nqn.2026-11.org.example:t0";
  r.nvmeof = {t};
  Plan p = routed_plan(r);
  REQUIRE(p.ok());
  std::vector<std::string> names;
  for (const auto& c : p.checks) names.push_back(c.id.name());
  for (const char* n : {"rail.0.bgp", "rail.0.bgp_prefixes", "rail.0.route", "rail.1.bgp", "rail.0.no_default_route"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  CHECK(p.rails[0].route_probes == std::vector<std::string>{"198.18.0.1", "198.18.0.100"});
  CHECK(p.rails[1].route_probes == std::vector<std::string>{"198.18.0.1"});
  for (const auto& c : p.checks)
    if (c.id.name() == "rail.0.route")
      CHECK(c.expected == "from 198.18.0.11 to 198.18.0.1, 198.18.0.100 via " + p.rails[0].netdev + " only");
}

TEST_CASE("routed rails: the recipe's node_asn when the node has none, shared with allowas-in origin") {
  Recipe r = routed();
  r.routing.node_asn = 4200000000;
  Plan p = routed_plan(r, routed_node(0));
  REQUIRE(p.bgp);
  CHECK(p.bgp->asn == 4200000000);
  CHECK(p.bgp->shared_asn);
  const PlannedFile* conf = file(p, kFrrConfigPath);
  REQUIRE(conf);
  CHECK(has_line(conf->content, "  neighbor " + p.rails[0].netdev + " allowas-in origin"));
}

TEST_CASE("routed rails: no AS at all is a problem; no identity plans no BGP") {
  Plan p = routed_plan(routed(), routed_node(0));
  CHECK_FALSE(p.ok());
  CHECK(p.problems.back().find("AS number") != std::string::npos);
  Plan anon = routed_plan(routed(), std::nullopt);
  CHECK(anon.ok());
  CHECK_FALSE(anon.bgp);
  CHECK(file(anon, kFrrConfigPath) == nullptr);
}

TEST_CASE("layer-2 rails plan no BGP and write no FRR files") {
  Plan p = make_plan(managed_server({{1, 1}, {1, 1}}), recipe(), node());
  CHECK_FALSE(p.bgp);
  CHECK(file(p, kFrrConfigPath) == nullptr);
  CHECK(p.rails[0].route_probes.empty());
}

TEST_CASE("node frr.conf: a session per rail, only its /32s out, only the fabric in, never a default route") {
  Plan p = routed_plan();
  const PlannedFile* conf = file(p, kFrrConfigPath);
  REQUIRE(conf);
  const std::string& c = conf->content;
  const std::string r0 = p.rails[0].netdev, r1 = p.rails[1].netdev;
  CHECK(has_line(c, "frr defaults datacenter"));
  CHECK(has_line(c, "hostname gpu-a01"));
  CHECK(has_line(c, "router bgp 4200000011"));
  CHECK(has_line(c, " bgp router-id 198.18.0.11"));
  CHECK(has_line(c, " neighbor " + r0 + " interface remote-as external"));
  CHECK(has_line(c, " neighbor " + r1 + " interface remote-as external"));
  CHECK(has_line(c, "  network 198.18.0.11/32"));
  CHECK(has_line(c, "  network 198.18.1.11/32"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-OWN seq 10 permit 198.18.0.11/32"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-FABRIC seq 5 deny 0.0.0.0/0"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-FABRIC seq 10 permit 198.18.0.0/16 le 32"));
  CHECK(has_line(c, "  neighbor " + r1 + " route-map RAILYARD-IN in"));
  CHECK(has_line(c, "  neighbor " + r1 + " route-map RAILYARD-OUT out"));
  CHECK(has_line(c, "interface " + r0));
  CHECK(has_line(c, "  neighbor " + r0 + " allowas-in origin"));
  CHECK(has_line(c, " ipv6 nd ra-lifetime 0"));
  const PlannedFile* daemons = file(p, kFrrDaemonsPath);
  REQUIRE(daemons);
  CHECK(has_line(daemons->content, "bgpd=yes"));
  CHECK(has_line(daemons->content, "ospfd=no"));
  // A start slower than watchfrr's default 20 s is no longer killed before bgpd has its config.
  CHECK(has_line(daemons->content, "watchfrr_options=\"--restart-timeout 90\""));
  // The same inputs, the same bytes: the agent writes it at every boot.
  CHECK(routed_plan().files.size() == p.files.size());
  CHECK(file(routed_plan(), kFrrConfigPath)->content == c);
}

TEST_CASE("leaf: each port expects its node's AS and accepts only that node's /32") {
  Recipe r = routed();
  std::vector<NodeEntry> nodes = {routed_node(4200000011), routed_node(4200000012)};
  nodes[1].hostname = "gpu-a02";
  nodes[1].mac = "3c:ec:ef:00:00:02";
  nodes[1].rails = {"198.18.0.12", "198.18.1.12"};
  nodes[1].lldp_port = "swp2";
  LeafPlan plan = plan_leaves(r, nodes);
  REQUIRE(plan.ok());
  REQUIRE(plan.leaves.size() == 2);
  const LeafIntent& leaf1 = plan.leaves[1];
  CHECK(leaf_asn(leaf1, r) == 65101);
  CHECK(router_id_of(65101) == "0.0.254.77");
  std::string c = frr_leaf_config(leaf1, r);
  CHECK(has_line(c, "hostname leaf-r1"));
  CHECK(has_line(c, "router bgp 65101"));
  CHECK(has_line(c, " bgp router-id 0.0.254.77"));
  CHECK(has_line(c, " neighbor swp1 interface remote-as 4200000011"));
  CHECK(has_line(c, " neighbor swp2 interface remote-as 4200000012"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-NODE0 seq 10 permit 198.18.1.11/32"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-NODE1 seq 10 permit 198.18.1.12/32"));
  CHECK(has_line(c, "  neighbor swp2 route-map RAILYARD-FROM-NODE1 in"));
  CHECK(has_line(c, "  neighbor swp2 route-map RAILYARD-TO-NODES out"));
  CHECK(has_line(c, " ipv6 nd ra-lifetime 0"));
  auto j = to_json(leaf1, r);
  CHECK(j["bgp"]["asn"] == 65101);
  CHECK(j["bgp"]["config"] == "leaf-r1.frr.conf");
  CHECK(j["ports"][1]["bgp"]["remote_as"] == 4200000012);
  CHECK(j["ports"][1]["bgp"]["accept"] == nlohmann::json::array({"198.18.1.12/32"}));
}

TEST_CASE("leaf: layer-2 rails or no leaf AS render no BGP; routed ports need names") {
  Recipe l2 = recipe();
  l2.lldp.expect_port = "swp1";
  auto plan = plan_leaves(l2, {node()});
  CHECK(frr_leaf_config(plan.leaves[0], l2).empty());
  CHECK(to_json(plan.leaves[0], l2)["bgp"].is_null());
  Recipe r = routed();
  r.routing.leaf_asn = 0;
  CHECK(frr_leaf_config(plan_leaves(r, {routed_node()}).leaves[0], r).empty());
  r = routed();
  r.lldp.expect_port = "";
  LeafPlan unnamed = plan_leaves(r, {routed_node()});
  CHECK_FALSE(unnamed.ok());
  CHECK(unnamed.problems[0].find("has no name") != std::string::npos);
}

TEST_CASE("AS numbers: the reserved ones are refused with the reason") {
  CHECK_FALSE(check_asn(65001));
  CHECK_FALSE(check_asn(4200000000));
  CHECK(check_asn(0));
  CHECK(check_asn(23456)->find("AS_TRANS") != std::string::npos);
  CHECK(check_asn(65535)->find("reserved") != std::string::npos);
  CHECK(check_asn(4294967295));
}

namespace {

Recipe with_tenant() {
  Recipe r = routed();
  r.tenant.vni = 100;
  r.tenant.flood = {"198.18.255.11", "198.18.255.12"};
  r.tenant.isolation_probe = "10.100.0.99";
  return r;
}

NodeEntry tenant_node() {
  NodeEntry n = routed_node();
  n.vtep = "198.18.255.11";
  n.tenant_address = "10.100.0.11/24";
  return n;
}

}  // namespace

TEST_CASE("tenant: a VXLAN device from the node's VTEP, its own VTEP left out of the flood list, three checks") {
  Plan p = routed_plan(with_tenant(), tenant_node());
  REQUIRE(p.ok());
  REQUIRE(p.tenant);
  CHECK(p.tenant->vni == 100);
  CHECK(p.tenant->vxlan == "vxlan100");
  CHECK(p.tenant->vtep == "198.18.255.11");
  CHECK(p.tenant->address == "10.100.0.11/24");
  CHECK(p.tenant->mtu == 9000 - 50);
  CHECK(p.tenant->flood == std::vector<std::string>{"198.18.255.12"});
  std::vector<std::string> names;
  for (const auto& c : p.checks) names.push_back(c.id.name());
  for (const char* n : {"tenant.vxlan", "tenant.vtep", "tenant.isolation"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  // bgpd announces the VTEP beside the rail /32s.
  const std::string& c = file(p, kFrrConfigPath)->content;
  CHECK(has_line(c, "  network 198.18.255.11/32"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-OWN seq 30 permit 198.18.255.11/32"));
}

TEST_CASE("tenant: none without a VNI, a problem without the node's VTEP") {
  CHECK_FALSE(routed_plan(routed(), tenant_node()).tenant);
  Plan p = routed_plan(with_tenant(), routed_node());
  CHECK_FALSE(p.ok());
  CHECK(p.problems.back().find("vtep and tenant_address") != std::string::npos);
}

TEST_CASE("tenant: each leaf port accepts its node's VTEP as well as its rail address") {
  Recipe r = with_tenant();
  NodeEntry n = tenant_node();
  LeafPlan plan = plan_leaves(r, {n});
  REQUIRE(plan.ok());
  std::string c = frr_leaf_config(plan.leaves[0], r);
  CHECK(has_line(c, "ip prefix-list RAILYARD-NODE0 seq 10 permit 198.18.0.11/32"));
  CHECK(has_line(c, "ip prefix-list RAILYARD-NODE0 seq 20 permit 198.18.255.11/32"));
  CHECK(to_json(plan.leaves[0], r)["ports"][0]["bgp"]["accept"] ==
        nlohmann::json::array({"198.18.0.11/32", "198.18.255.11/32"}));
}

TEST_CASE("routed rails: a route probe is never an address of the node's own") {
  NodeEntry n = routed_node();
  n.rails = {"198.18.0.1", "198.18.1.11"};
  Plan p = routed_plan(routed(), n);
  REQUIRE(p.ok());
  CHECK(p.rails[0].route_probes == std::vector<std::string>{"198.18.0.2"});
}
