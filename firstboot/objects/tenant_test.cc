// The tenant network (objects/tenant.cc) against FakeRtnl and FakeHost: the VTEP on the
// loopback, the VXLAN device, its flood list, and the three checks.
#include <doctest/doctest.h>

#include "support/fake_clock.h"
#include "support/rtnl_rig.h"
#include "support/verify_node.h"
#include "objects/tenant.h"

using railyard::test::FakeClock;
using railyard::test::verify_node::FakeDataPath;

namespace {

Plan tenant_plan() {
  Plan p = plan_of(
      {rail(0, "rail0", std::nullopt, "198.18.0.11/32", 100), rail(1, "rail1", std::nullopt, "198.18.1.11/32", 101)});
  p.bgp = BgpPlan{};
  TenantPlan t;
  t.vni = 100;
  t.vxlan = "vxlan100";
  t.vtep = "198.18.255.11";
  t.address = "10.100.0.11/24";
  t.mtu = 8950;
  t.flood = {"198.18.255.12", "198.18.255.13"};
  t.isolation_probe = "10.100.0.99";
  p.tenant = t;
  return p;
}

CheckResult evaluate(void (*fn)(const VerifyContext&, CheckResult&), const Plan& plan, Kernel& kernel) {
  Inventory now;
  FakeDataPath rdma;
  FakeClock clock;
  VerifyContext ctx{plan, now, kernel, rdma, clock, nullptr, nullptr};
  CheckResult r;
  fn(ctx, r);
  return r;
}

}  // namespace

TEST_CASE(
    "tenant apply: VTEP on lo, the VXLAN device up with MTU and address, one flood entry per remote VTEP; twice") {
  FakeKernel f;
  f.host.writes_create = true;  // the device's /proc/sys files come with it
  f.rtnl.add_link("lo", 65536, true);
  Plan plan = tenant_plan();
  auto out = run(apply_tenant, plan, f.kernel);
  CAPTURE(listing(out));
  CHECK(find(out, "tenant 100: VTEP 198.18.255.11 on lo").outcome == ChangeOutcome::changed);
  CHECK(find(out, "tenant 100: vxlan100").after == "VNI 100 from 198.18.255.11");
  CHECK(f.rtnl.writes ==
        std::vector<std::string>{"add_address lo 198.18.255.11/32", "add_vxlan vxlan100 100 198.18.255.11",
                                 "set_mtu vxlan100 8950", "set_link_up vxlan100", "add_address vxlan100 10.100.0.11/24",
                                 "add_flood vxlan100 198.18.255.12", "add_flood vxlan100 198.18.255.13"});
  CHECK(f.host.files["/proc/sys/net/ipv4/conf/vxlan100/arp_ignore"] == "1");
  CHECK(f.host.files["/proc/sys/net/ipv4/conf/vxlan100/arp_announce"] == "2");
  f.rtnl.writes.clear();
  CHECK(not_unchanged(run(apply_tenant, plan, f.kernel)) == "");
  CHECK(f.rtnl.writes.empty());
}

TEST_CASE("tenant apply: a device of that name on another VNI is reported, not modified") {
  FakeKernel f;
  f.rtnl.add_link("lo", 65536, true);
  f.rtnl.add_link("vxlan100", 1450, true).vni = 200;
  auto out = run(apply_tenant, tenant_plan(), f.kernel);
  Change c = find(out, "tenant 100: vxlan100");
  CHECK(c.outcome == ChangeOutcome::failed);
  CHECK(c.detail == "vxlan100 exists otherwise; not modified");
  CHECK(f.rtnl.flood.empty());
}

TEST_CASE("tenant checks: the device as planned, the remote VTEPs flooded to and routed by a rail, isolation") {
  FakeKernel f;
  f.host.writes_create = true;
  f.rtnl.add_link("lo", 65536, true);
  f.rtnl.add_link("rail0", 9000, true);
  f.rtnl.add_link("rail1", 9000, true);
  Plan plan = tenant_plan();
  (void)run(apply_tenant, plan, f.kernel);
  f.rtnl.route_entries = {{"198.18.255.12", "rail0", "", 254, "fe80::1"},
                          {"198.18.255.13", "rail1", "", 254, "fe80::2"}};

  CheckResult vx = evaluate(verify_tenant_vxlan, plan, f.kernel);
  CHECK(vx.status == CheckStatus::pass);
  CHECK(vx.observed == "vxlan100 up, VNI 100 from 198.18.255.11, 10.100.0.11/24");
  CheckResult vt = evaluate(verify_tenant_vtep, plan, f.kernel);
  CHECK(vt.status == CheckStatus::pass);
  CHECK(vt.observed == "198.18.255.12 via rail0, 198.18.255.13 via rail1");
  CheckResult iso = evaluate(verify_tenant_isolation, plan, f.kernel);
  CHECK(iso.status == CheckStatus::pass);
  CHECK(f.host.echoes == std::vector<std::string>{"10.100.0.11>10.100.0.99"});

  // A VTEP whose /32 BGP never learned; the probe of another VNI answering.
  f.rtnl.route_entries.pop_back();
  vt = evaluate(verify_tenant_vtep, plan, f.kernel);
  CHECK(vt.status == CheckStatus::fail);
  CHECK(vt.detail.find("198.18.255.13") != std::string::npos);
  f.host.answering.insert("10.100.0.99");
  iso = evaluate(verify_tenant_isolation, plan, f.kernel);
  CHECK(iso.status == CheckStatus::fail);
  CHECK(iso.observed == "10.100.0.99 answered from 10.100.0.11");

  f.rtnl.links["vxlan100"].up = false;
  vx = evaluate(verify_tenant_vxlan, plan, f.kernel);
  CHECK(vx.status == CheckStatus::fail);
  CHECK(vx.detail.find("down") != std::string::npos);
}
