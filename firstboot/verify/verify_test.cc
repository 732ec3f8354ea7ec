// Verify (verify/verify.cc): every planned check evaluated in order, required-ness, checks without
// an evaluator.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/verify_node.h"

TEST_CASE("verify: a healthy node passes every check the plan lists, in the plan's order") {
  Node n;
  auto results = n.verify_all();
  CAPTURE(listing(results));
  REQUIRE(results.size() == n.plan.checks.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    CAPTURE(results[i].name());
    CHECK(results[i].id == n.plan.checks[i].id);
    CHECK(results[i].expected == n.plan.checks[i].expected);
    CHECK(results[i].required == n.plan.checks[i].required);
    CHECK(results[i].status == CheckStatus::pass);
  }
  CHECK(node_passes(results));
  // The plan has every kind of check this file covers.
  std::vector<std::string> names;
  for (const auto& r : results) names.push_back(r.name());
  for (std::string want : {"gpu.count",
                           "gpu.model",
                           "gpu.0.pcie_link",
                           "gpu.2.pcie_link",
                           "rails.count",
                           "rail.0.affinity",
                           "rail.0.pcie_link",
                           "rail.0.link",
                           "rail.0.speed",
                           "rail.0.mtu",
                           "rail.0.vlan",
                           "rail.0.address",
                           "rail.0.no_default_route",
                           "rail.0.pfc",
                           "rail.0.trust",
                           "rail.0.dscp_map",
                           "rail.0.ecn",
                           "rail.0.roce_tos",
                           "rail.0.storm_prevention",
                           "rail.0.rdma_port",
                           "rail.0.roce_v2_gid",
                           "rail.0.rdma_write",
                           "rail.0.pause_storm",
                           "rail.2.rdma_write",
                           "rails.cross_rdma_write",
                           "nvmeof.0.connected",
                           "nvmeof.0.namespace_read",
                           "gpudirect.peermem",
                           "gpudirect.acs.0000:11:00.0"}) {
    CAPTURE(want);
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
}

TEST_CASE("verify: the checks that wait for the far end's LLDP run last; the results keep the plan's order") {
  Node n;
  std::vector<std::size_t> writes_before;  // data path tests done when each LLDP answer was asked for
  n.lldp.on_heard = [&](const std::string&) { writes_before.push_back(n.rdma.calls.size()); };
  auto results = n.verify_all();
  CAPTURE(listing(results));
  REQUIRE_FALSE(writes_before.empty());
  // Every RDMA write, per rail and between rails, came first (3 rails: 3 + 3 pairs).
  CHECK(n.rdma.calls.size() == 6);
  for (std::size_t w : writes_before) CHECK(w == n.rdma.calls.size());
  REQUIRE(results.size() == n.plan.checks.size());
  for (std::size_t i = 0; i < results.size(); ++i) CHECK(results[i].id == n.plan.checks[i].id);
  auto at = [&](const std::string& name) {
    return std::find_if(results.begin(), results.end(), [&](const CheckResult& r) { return r.name() == name; });
  };
  CHECK(at("rail.0.lldp") < at("rail.1.link"));  // reported where the plan lists it
  CHECK(at("rail.0.lldp")->status == CheckStatus::pass);
}

TEST_CASE("verify: a check the plan does not mark required turns a failure into a warning") {
  Node n;
  n.rtnl.links["ens0f0.200"].mtu = 1500;
  auto r = n.check("rail.0.mtu");
  CHECK(r.status == CheckStatus::fail);
  for (auto& c : n.plan.checks)
    if (c.id == CheckId::rail(CheckKind::rail_mtu, 0)) c.required = false;
  r = n.check("rail.0.mtu");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK_FALSE(r.required);
  CHECK(r.observed == "1500");
  CHECK(contains(r.detail, "switch port must match"));
  CHECK(node_passes({r}));
}

TEST_CASE("verify: a check this agent has no evaluator for is skipped, and does not fail the node") {
  Node n;
  n.plan.checks = {{CheckId::parse("bogus.check"), "anything", true},
                   {CheckId::parse("rail.7.mtu"), "9000", true},           // no rail 7
                   {CheckId::parse("rail.0.colour"), "blue", true},        // no such rail check
                   {CheckId::parse("nvmeof.3.connected"), "live", true}};  // no target 3
  auto results = n.verify_all();
  CAPTURE(listing(results));
  REQUIRE(results.size() == 4);
  for (const auto& r : results) {
    CAPTURE(r.name());
    CHECK(r.status == CheckStatus::skip);
    CHECK(r.detail == "this agent has no evaluator for the check");
    CHECK_FALSE(r.failing());
  }
  CHECK(node_passes(results));
}

TEST_CASE("verify: one required failure fails the node; the same failures best-effort do not") {
  Node n;
  n.dcb.pfcs["ens1f0"].pfc_en = 0;
  n.host.files["/sys/class/net/ens2f0/ecn/roce_np/enable/3"] = "0";
  auto results = n.verify_all();
  CAPTURE(listing(results));
  int fails = 0, warns = 0;
  for (const auto& r : results) {
    fails += r.status == CheckStatus::fail;
    warns += r.status == CheckStatus::warn;
  }
  CHECK(fails == 1);
  CHECK(warns == 1);
  CHECK_FALSE(node_passes(results));

  Node b([](Recipe& rc) { rc.fabric.pfc = Requirement::best_effort; });
  b.dcb.pfcs["ens1f0"].pfc_en = 0;
  b.dcb.fail["apps ens0f0"] = EOPNOTSUPP;
  results = b.verify_all();
  CAPTURE(listing(results));
  for (const auto& r : results) {
    CAPTURE(r.name());
    CHECK_FALSE(r.failing());
  }
  CHECK(node_passes(results));
}
