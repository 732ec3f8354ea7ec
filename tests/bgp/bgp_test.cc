// Routed rails on the kernel's own routing and Debian's FRR (tests/bgp/run.sh sets up the
// namespaces and the leaves): the agent's plan for node01, its bgpd started with the
// configuration the plan renders, the addresses, rules and rail tables applied through
// rtnetlink, and the checks against what the kernel and bgpd answer. Then the faults an
// operator meets: a leaf that drops the session, a node AS the leaves refuse.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "apply/apply.h"
#include "clock.h"
#include "frr.h"
#include "kernel/bgp.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "kernel/host_native.h"
#include "io/process.h"
#include "kernel/rtnl_native.h"
#include "objects/address.h"
#include "objects/routing.h"
#include "objects/sysctl.h"
#include "objects/tenant.h"
#include "recipe_loader.h"
#include "io/disk_source.h"
#include "support/hardware_builder.h"
#include "objects/result.h"

using namespace railyard;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v, name << " is not set: run through tests/bgp/run.sh");
  return v;
}

Recipe routed_recipe() {
  DiskSource disk;
  Diagnostics diags;
  RecipeOptions opts;
  opts.check_references = false;
  auto loaded = load_recipe(disk, env("RAILYARD_BGP_SOURCE") + "/tests/bgp/routed.toml", opts, diags);
  REQUIRE_MESSAGE(loaded, "tests/bgp/routed.toml does not load");
  return loaded->recipe;
}

NodeEntry node_entry(const std::string& host, int n, std::int64_t asn) {
  NodeEntry e;
  e.hostname = host;
  e.mac = "52:54:00:00:01:0" + std::to_string(n);
  e.rails = {"198.18.0.1" + std::to_string(n), "198.18.1.1" + std::to_string(n)};
  e.lldp_port = "swp" + std::to_string(n);
  e.asn = asn;
  e.vtep = "198.18.255.1" + std::to_string(n);
  e.tenant_address = "10.100.0.1" + std::to_string(n) + "/24";
  return e;
}

// The planner on a server whose two rail NICs are called rail0 and rail1, as the veths are.
Plan plan_for(const Recipe& r, const NodeEntry& node) {
  Inventory inv = test::managed_server({{1, 1}, {1, 1}});
  int i = 0;
  for (auto& nic : inv.nics)
    if (!nic.management) nic.ifname = "rail" + std::to_string(i++);
  Plan p = make_plan(inv, r, node);
  REQUIRE_MESSAGE(p.ok(), to_text(p));
  return p;
}

// bgpd for a node of the test: zebra and bgpd in a namespace, its configuration the plan's.
class TestBgp : public NativeBgp {
 public:
  TestBgp(std::string dir, std::string netns, const Plan& plan)
      : NativeBgp(dir), dir_(std::move(dir)), netns_(std::move(netns)), plan_(plan) {}
  ~TestBgp() override { stop(); }

  Status start(bool) override {  // always afresh: each test case starts its own daemons
    stop();
    std::filesystem::create_directories(dir_);
    for (const auto& f : frr_node_files(plan_))
      if (f.path == kFrrConfigPath) std::ofstream(dir_ + "/frr.conf") << f.content;
    run_process({.argv = {"chown", "-R", "frr:frr", dir_}});
    for (const char* d : {"zebra", "bgpd"}) {
      std::vector<std::string> argv = {std::string("/usr/lib/frr/") + d,
                                       "-d",
                                       "-f",
                                       dir_ + "/frr.conf",
                                       "-i",
                                       dir_ + "/" + d + ".pid",
                                       "-z",
                                       dir_ + "/zserv.api",
                                       "--vty_socket",
                                       dir_,
                                       "-A",
                                       "127.0.0.1",
                                       "-P",
                                       "0",
                                       "--log",
                                       "file:" + dir_ + "/" + d + ".log"};
      if (!netns_.empty()) argv.insert(argv.begin(), {"ip", "netns", "exec", netns_});
      if (ProcessResult r = run_process({.argv = argv}); !r.ok())
        return Status::fail(EIO, std::string(d) + " did not start: " + r.how());
    }
    return success();
  }

  // Until the daemons have exited (10 s at most): a bgpd started while the last one still
  // holds its sessions meets leaves that have not yet seen those sessions end, and their
  // answer is about the collision, not about the new bgpd.
  void stop() {
    std::vector<int> pids;
    for (const char* d : {"bgpd", "zebra"}) {
      std::ifstream pid(dir_ + "/" + d + ".pid");
      int p = 0;
      if (pid >> p && p > 0 && ::kill(p, SIGTERM) == 0) pids.push_back(p);
    }
    for (int i = 0; i < 100 && std::any_of(pids.begin(), pids.end(), [](int p) { return ::kill(p, 0) == 0; }); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

 private:
  std::string dir_, netns_;
  Plan plan_;
};

struct NativeKernel {
  NativeRtnl rtnl;
  NativeDcb dcb;
  NativeEthtool ethtool;
  NativeHost host;
  Kernel kernel{rtnl, dcb, ethtool, host};
};

// The routing checks send no RDMA traffic.
struct NoDataPath : RdmaDataPath {
  Outcome<double> write_test(const std::string&, int, const std::string&, int, std::size_t, int) override {
    return Outcome<double>::fail(ENOSYS, "unused");
  }
  Outcome<GpuWrite> gpu_write_test(const std::string&, int, const std::string&, std::size_t, int) override {
    return Outcome<GpuWrite>::fail(ENOSYS, "unused");
  }
};

CheckResult check(void (*fn)(const VerifyContext&, const RailPlan&, CheckResult&), const Plan& plan, int rail,
                  Kernel& kernel, const BgpBringUp& bgp, CheckKind kind) {
  Inventory now;
  NoDataPath rdma;
  VerifyContext ctx{plan, now, kernel, rdma, real_clock(), nullptr, &bgp};
  CheckResult r;
  r.id = CheckId::rail(kind, rail);
  fn(ctx, plan.rails[static_cast<std::size_t>(rail)], r);
  return r;
}

std::string failed(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes)
    if (c.outcome == ChangeOutcome::failed) out += c.object + ": " + c.detail + "\n";
  return out;
}

}  // namespace

TEST_CASE("routed rails: sessions with both leaves, each rail's traffic on its rail, a packet across a leaf") {
  const std::string work = env("RAILYARD_BGP_WORK");
  Recipe r = routed_recipe();
  Plan plan = plan_for(r, node_entry("node01", 1, 4200000011));
  Plan peer_plan = plan_for(r, node_entry("node02", 2, 4200000012));
  TestBgp peer(work + "/node02", env("RAILYARD_BGP_PEER_NS"), peer_plan);
  REQUIRE(peer.start(true).ok());

  NativeKernel k;
  std::vector<Change> changes;
  for (Applier a : {apply_addresses, apply_routing, apply_sysctls, apply_tenant}) a(plan, k.kernel, changes);
  CHECK_MESSAGE(failed(changes) == "", failed(changes));

  TestBgp bgp(work + "/node01", "", plan);
  BgpBringUp up = bring_up_bgp(plan, bgp, real_clock());
  MESSAGE("every session Established with its routes after " << up.waited_ms << " ms from the start of bgpd");
  REQUIRE_MESSAGE(up.all_up, up.error);
  changes.clear();
  apply_rail_tables(plan, up.sessions, k.kernel, changes);
  CHECK_MESSAGE(failed(changes) == "", failed(changes));

  for (int rail : {0, 1}) {
    CAPTURE(rail);
    CheckResult s = check(verify_bgp_session, plan, rail, k.kernel, up, CheckKind::rail_bgp);
    CHECK_MESSAGE(s.status == CheckStatus::pass, s.observed << " " << s.detail);
    CHECK(s.observed.find("AS " + std::to_string(65100 + rail)) != std::string::npos);
    CheckResult p = check(verify_bgp_prefixes, plan, rail, k.kernel, up, CheckKind::rail_bgp_prefixes);
    CHECK_MESSAGE(p.status == CheckStatus::pass, p.observed << " " << p.detail);
    CheckResult route = check(verify_rail_route, plan, rail, k.kernel, up, CheckKind::rail_route);
    CHECK_MESSAGE(route.status == CheckStatus::pass, route.observed << " " << route.detail);
  }
  // BGP spread node02's rail-1 address over the main table; from rail 1's address the kernel
  // still sends it by rail 1, through leaf 1, with an IPv6 link-local next hop.
  auto lookup = k.rtnl.route_get("198.18.1.12", "198.18.1.11");
  REQUIRE_MESSAGE(lookup.ok(), lookup.error());
  CHECK(lookup->dev == "rail1");
  CHECK(lookup->table == 101);
  CHECK(lookup->via.rfind("fe80::", 0) == 0);
  CHECK(run_process({.argv = {"ping", "-c", "1", "-w", "5", "-I", "198.18.1.11", "198.18.1.12"}}).ok());
  // The tenant network: VNI 100 from this node's VTEP, node02's VTEP learned over BGP, a ping
  // across the overlay, and node02's other VNI out of reach.
  REQUIRE(plan.tenant);
  auto tenant_check = [&](void (*fn)(const VerifyContext&, CheckResult&)) {
    Inventory now;
    NoDataPath rdma;
    VerifyContext ctx{plan, now, k.kernel, rdma, real_clock(), nullptr, &up};
    CheckResult r;
    fn(ctx, r);
    return r;
  };
  CheckResult vx = tenant_check(verify_tenant_vxlan);
  CHECK_MESSAGE(vx.status == CheckStatus::pass, vx.observed << " " << vx.detail);
  CheckResult vt = tenant_check(verify_tenant_vtep);
  CHECK_MESSAGE(vt.status == CheckStatus::pass, vt.observed << " " << vt.detail);
  CHECK(run_process({.argv = {"ping", "-c", "1", "-w", "5", "-I", "10.100.0.11", "10.100.0.12"}}).ok());
  CheckResult iso = tenant_check(verify_tenant_isolation);
  CHECK_MESSAGE(iso.status == CheckStatus::pass, iso.observed << " " << iso.detail);
  // node02 stops keeping its VNIs apart: the probe of the other VNI answers, and the check says so.
  REQUIRE(run_process({.argv = {"ip", "netns", "exec", env("RAILYARD_BGP_PEER_NS"), "sysctl", "-qw",
                                "net.ipv4.conf.vxlan100.arp_ignore=0"}})
              .ok());
  iso = tenant_check(verify_tenant_isolation);
  CHECK(iso.status == CheckStatus::fail);
  CHECK(iso.observed == "10.100.0.99 answered from 10.100.0.11");

  // No default route came with the sessions, in either family.
  auto main = k.rtnl.routes(254);
  REQUIRE(main.ok());
  for (const auto& route : *main) CHECK(route.destination != "default");
  CHECK(run_process({.argv = {"ip", "-6", "route", "show", "default"}, .capture = true}).out == "");

  // A leaf that drops the session: rail.1.bgp fails naming the state, rail 0 stays up.
  {
    REQUIRE(run_process({.argv = {"vtysh", "--vty_socket", work + "/leaf1", "-c", "configure terminal", "-c",
                                  "router bgp 65101", "-c", "no neighbor swp1"}})
                .ok());
    BgpBringUp now;
    for (int i = 0; i < 40; ++i) {
      auto s = bgp.sessions();
      REQUIRE(s.ok());
      now.sessions = *s;
      const BgpSession* r1 = session_of(now.sessions, plan.rails[1]);
      if (r1 && !r1->established()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    CheckResult s1 = check(verify_bgp_session, plan, 1, k.kernel, now, CheckKind::rail_bgp);
    CHECK(s1.status == CheckStatus::fail);
    CHECK(s1.observed.find("Established") == std::string::npos);
    CHECK(s1.detail.find("does not complete the session") != std::string::npos);
    CHECK(check(verify_bgp_session, plan, 0, k.kernel, now, CheckKind::rail_bgp).status == CheckStatus::pass);
  }
  // A node AS the leaves do not expect: refused at OPEN, and said so.
  {
    Plan wrong = plan_for(r, node_entry("node01", 1, 4200000099));
    wrong.bgp->session_wait_s = 8;
    TestBgp refused(work + "/node01", "", wrong);
    BgpBringUp b = bring_up_bgp(wrong, refused, real_clock());
    CHECK_FALSE(b.all_up);
    CheckResult s0 = check(verify_bgp_session, wrong, 0, k.kernel, b, CheckKind::rail_bgp);
    CHECK(s0.status == CheckStatus::fail);
    CHECK_MESSAGE(s0.detail.find("Bad Peer AS") != std::string::npos, s0.observed << ": " << s0.detail);
    CHECK(s0.detail.find("4200000099") != std::string::npos);
  }
}
