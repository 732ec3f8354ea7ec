// The appliers that work through Host (modules, Soft-RoCE, trust, ECN, ToS, ACS, NVMe-oF),
// against an in-memory host: what they change, what they leave, and that a second run
// changes nothing.
#include <doctest/doctest.h>

#include "apply.h"
#include "support/fake_host.h"

using namespace railyard;

namespace {

// Ordinary files appear when written (the NVMe identity); kernel files are set up by each test.
struct OpenHost : railyard::test::FakeHost {
  OpenHost() { writes_create = true; }
};

// The appliers here never touch rtnetlink, DCB or ethtool: any call fails the test.
struct NoRtnl : Rtnl {
  Expected<LinkInfo> link(const std::string&) override { return fail<LinkInfo>(); }
  Status set_link_up(const std::string&) override { return bad(); }
  Status set_mtu(const std::string&, int) override { return bad(); }
  Status add_vlan(const std::string&, const std::string&, int) override { return bad(); }
  Expected<std::vector<std::string>> addresses(const std::string&) override { return fail<std::vector<std::string>>(); }
  Status add_address(const std::string&, const std::string&) override { return bad(); }
  Expected<std::vector<RouteInfo>> routes(int) override { return fail<std::vector<RouteInfo>>(); }
  Status add_route(const RouteInfo&) override { return bad(); }
  Expected<std::vector<RuleInfo>> rules() override { return fail<std::vector<RuleInfo>>(); }
  Status add_rule(const RuleInfo&) override { return bad(); }
  template <class T>
  static Expected<T> fail() {
    FAIL("rtnetlink used");
    return Expected<T>::fail(bad());
  }
  static Status bad() { return Status::error(ENOSYS, "unused"); }
};
struct NoDcb : Dcb {
  Expected<IeeePfc> pfc(const std::string&) override { return Expected<IeeePfc>::fail(NoRtnl::bad()); }
  Status set_pfc(const std::string&, const IeeePfc&) override { return NoRtnl::bad(); }
  Expected<std::vector<DcbApp>> apps(const std::string&) override { return Expected<std::vector<DcbApp>>::fail(NoRtnl::bad()); }
  Status add_apps(const std::string&, const std::vector<DcbApp>&) override { return NoRtnl::bad(); }
};
struct NoEthtool : Ethtool {
  Expected<std::uint16_t> tunable_u16(const std::string&, std::uint32_t) override {
    return Expected<std::uint16_t>::fail(NoRtnl::bad());
  }
  Status set_tunable_u16(const std::string&, std::uint32_t, std::uint16_t) override { return NoRtnl::bad(); }
  Expected<std::map<std::string, std::uint64_t>> stats(const std::string&) override {
    return Expected<std::map<std::string, std::uint64_t>>::fail(NoRtnl::bad());
  }
};

struct Rig {
  OpenHost host;
  NoRtnl rtnl;
  NoDcb dcb;
  NoEthtool ethtool;
  Kernel kernel{rtnl, dcb, ethtool, host};
  std::vector<Change> run(Applier a, const Plan& p) {
    std::vector<Change> out;
    a(p, kernel, out);
    return out;
  }
};

RailPlan rail(int index, std::string ifname, std::string rdma) {
  RailPlan r;
  r.index = index;
  r.ifname = ifname;
  r.netdev = ifname;
  r.rdma_device = rdma;
  r.roce_tos = 106;
  return r;
}

std::string outcomes(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes) out += c.object + ": " + to_string(c.outcome) + "\n";
  return out;
}

bool all_unchanged(const std::vector<Change>& changes) {
  for (const auto& c : changes)
    if (c.outcome != Outcome::unchanged) return false;
  return !changes.empty();
}

}  // namespace

TEST_CASE("modules: loads what is missing, in order; a missing module fails") {
  Rig rig;
  rig.host.available_modules = {"8021q", "rdma_cm"};
  rig.host.modules = {"8021q"};
  Plan p;
  p.modules = {"8021q", "rdma_cm", "nvidia_peermem"};
  auto c = rig.run(apply_modules, p);
  CHECK(outcomes(c) == "module 8021q: unchanged\nmodule rdma_cm: changed\nmodule nvidia_peermem: failed\n");
  CHECK(c[2].detail.find("no such module") != std::string::npos);
  rig.host.available_modules.insert("nvidia_peermem");
  rig.run(apply_modules, p);
  CHECK(all_unchanged(rig.run(apply_modules, p)));
}

TEST_CASE("soft_roce: creates rxe on the physical interface once; a name taken by another is a failure") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "enp17s0", "rxe0"), rail(1, "enp18s0", "rxe1")};
  p.rails[0].soft_roce_device = "rxe0";
  p.rails[0].netdev = "enp17s0.100";  // never on the VLAN device
  p.rails[1].soft_roce_device = "rxe1";
  rig.host.files["/sys/class/infiniband/rxe1/parent"] = "enp99s0";
  auto c = rig.run(apply_soft_roce, p);
  CHECK(outcomes(c) == "rail 0 (enp17s0): Soft-RoCE rxe0: changed\nrail 1 (enp18s0): Soft-RoCE rxe1: failed\n");
  REQUIRE(rig.host.rxe_added.size() == 1);
  CHECK(rig.host.rxe_added[0] == std::pair<std::string, std::string>{"rxe0", "enp17s0"});
  CHECK(c[1].detail == "an RDMA device named rxe1 already serves enp99s0");
  CHECK(rig.run(apply_soft_roce, p)[0].outcome == Outcome::unchanged);
}

TEST_CASE("trust: written where qos/trust exists, unsupported where it does not, nothing without PFC") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_0"), rail(1, "ens2f0np0", "mlx5_1"), rail(2, "ens3f0np0", "mlx5_2")};
  p.rails[0].trust = p.rails[1].trust = "dscp";
  rig.host.files["/sys/class/net/ens1f0np0/qos/trust"] = "pcp";
  auto c = rig.run(apply_trust, p);
  CHECK(outcomes(c) == "rail 0 (ens1f0np0): trust: changed\nrail 1 (ens2f0np0): trust: unsupported\n");
  CHECK(c[0].before == "pcp");
  CHECK(rig.host.files["/sys/class/net/ens1f0np0/qos/trust"] == "dscp");
  CHECK(c[1].detail.find("upstream mlx5") != std::string::npos);
  CHECK(rig.run(apply_trust, p)[0].outcome == Outcome::unchanged);
}

TEST_CASE("ecn: both roles on the RoCE priority; absent files are unsupported; off does nothing") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_0")};
  p.rails[0].ecn_priority = 3;
  rig.host.files["/sys/class/net/ens1f0np0/ecn/roce_np/enable/3"] = "0";
  rig.host.files["/sys/class/net/ens1f0np0/ecn/roce_rp/enable/3"] = "1";
  auto c = rig.run(apply_ecn, p);
  CHECK(outcomes(c) == "rail 0 (ens1f0np0): ECN roce_np priority 3: changed\n"
                       "rail 0 (ens1f0np0): ECN roce_rp priority 3: unchanged\n");
  CHECK(all_unchanged(rig.run(apply_ecn, p)));
  Rig upstream;
  CHECK(outcomes(upstream.run(apply_ecn, p)) == "rail 0 (ens1f0np0): ECN roce_np priority 3: unsupported\n"
                                                "rail 0 (ens1f0np0): ECN roce_rp priority 3: unsupported\n");
  p.rails[0].ecn_priority = -1;
  CHECK(upstream.run(apply_ecn, p).empty());
}

TEST_CASE("roce_tos: configfs directory per device, ToS and RoCE v2 mode; missing configfs is unsupported") {
  Rig rig;
  Plan p;
  p.rails = {rail(0, "ens1f0np0", "mlx5_2")};
  rig.host.dirs.insert("/sys/kernel/config/rdma_cm");
  const std::string port = "/sys/kernel/config/rdma_cm/mlx5_2/ports/1/";
  rig.host.files[port + "default_roce_tos"] = "0";
  rig.host.files[port + "default_roce_mode"] = "IB/RoCE v1";
  auto c = rig.run(apply_roce_tos, p);
  CHECK(outcomes(c) == "rail 0 (ens1f0np0): RoCE ToS: changed\nrail 0 (ens1f0np0): RoCE mode: changed\n");
  CHECK(rig.host.dirs.count("/sys/kernel/config/rdma_cm/mlx5_2"));
  CHECK(rig.host.files[port + "default_roce_tos"] == "106");
  CHECK(rig.host.files[port + "default_roce_mode"] == "RoCE v2");
  CHECK(all_unchanged(rig.run(apply_roce_tos, p)));
  Rig bare;
  auto u = bare.run(apply_roce_tos, p);
  REQUIRE(u.size() == 1);
  CHECK(u[0].outcome == Outcome::unsupported);
  CHECK(u[0].detail.find("configfs not mounted or rdma_cm not loaded") != std::string::npos);
}

namespace {

// 4 KiB of config space with an extended capability chain: AER at 0x100, ACS at 0x148.
std::vector<std::uint8_t> config_with_acs(std::uint16_t ctrl) {
  std::vector<std::uint8_t> c(4096, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put32(0x100, 0x0001 | (1u << 16) | (0x148u << 20));  // AER, next 0x148
  put32(0x148, 0x000d | (1u << 16) | (0u << 20));      // ACS, last
  c[0x14e] = static_cast<std::uint8_t>(ctrl & 0xff);
  c[0x14f] = static_cast<std::uint8_t>(ctrl >> 8);
  return c;
}

}  // namespace

TEST_CASE("acs: control register cleared where set; ports without ACS are left alone") {
  Rig rig;
  Plan p;
  p.acs_disable = {"0000:17:00.0", "0000:18:00.0", "0000:19:00.0"};
  rig.host.config["0000:17:00.0"] = config_with_acs(0x001d);
  rig.host.config["0000:18:00.0"] = config_with_acs(0);
  rig.host.config["0000:19:00.0"] = std::vector<std::uint8_t>(4096, 0);
  auto c = rig.run(apply_acs, p);
  CHECK(outcomes(c) == "PCIe port 0000:17:00.0: ACS: changed\nPCIe port 0000:18:00.0: ACS: unchanged\n"
                       "PCIe port 0000:19:00.0: ACS: unchanged\n");
  CHECK(c[0].before == "0x001d");
  CHECK(rig.host.config["0000:17:00.0"][0x14e] == 0);
  CHECK(c[2].before == "no ACS capability");
  CHECK(all_unchanged(rig.run(apply_acs, p)));
  rig.host.config["0000:17:00.0"].resize(64);  // not root: only the standard header is readable
  CHECK(rig.run(apply_acs, p)[0].outcome == Outcome::failed);
}

namespace {

Plan nvme_plan() {
  Plan p;
  p.rails = {rail(0, "enp17s0", "rxe0")};
  NvmeofConnection c;
  c.address = "198.18.0.100";
  c.nqn = "nqn.2026-11.org.railyard.lab:target0";
  c.host_iface = "enp17s0.100";
  c.host_traddr = "198.18.0.11";
  p.nvmeof = {c};
  return p;
}

}  // namespace

TEST_CASE("nvmeof: identity from the DMI UUID, discovery.conf, one connect, then nothing") {
  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  Plan p = nvme_plan();
  auto c = rig.run(apply_nvmeof, p);
  CHECK(rig.host.files["/etc/nvme/hostnqn"] == "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0042-3510-8052-b4c04f333732");
  CHECK(rig.host.files["/etc/nvme/hostid"] == "4c4c4544-0042-3510-8052-b4c04f333732");
  CHECK(rig.host.files["/etc/nvme/discovery.conf"].find(
            "--transport=rdma --traddr=198.18.0.100 --trsvcid=4420 --host-traddr=198.18.0.11") != std::string::npos);
  REQUIRE(rig.host.connects.size() == 1);
  CHECK(rig.host.connects[0] ==
        "nqn=nqn.2026-11.org.railyard.lab:target0,transport=rdma,traddr=198.18.0.100,trsvcid=4420,"
        "hostnqn=nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0042-3510-8052-b4c04f333732,"
        "hostid=4c4c4544-0042-3510-8052-b4c04f333732,host_traddr=198.18.0.11");
  CHECK(c.back().outcome == Outcome::changed);
  CHECK(c.back().detail == "instance=1,cntlid=1");
  // The kernel now lists the controller: the second run connects nothing.
  rig.host.files["/sys/class/nvme/nvme1/transport"] = "rdma";
  rig.host.files["/sys/class/nvme/nvme1/subsysnqn"] = "nqn.2026-11.org.railyard.lab:target0";
  rig.host.files["/sys/class/nvme/nvme1/address"] = "traddr=198.18.0.100,trsvcid=4420,src_addr=198.18.0.11";
  CHECK(all_unchanged(rig.run(apply_nvmeof, p)));
  CHECK(rig.host.connects.size() == 1);
}

TEST_CASE("nvmeof: no DMI UUID falls back to the machine id and says so; an unreachable target fails") {
  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "00000000-0000-0000-0000-000000000000";
  rig.host.files["/etc/machine-id"] = "0123456789abcdef0123456789abcdef";
  rig.host.connect_errno = ECONNREFUSED;
  auto c = rig.run(apply_nvmeof, nvme_plan());
  CHECK(rig.host.files["/etc/nvme/hostid"] == "01234567-89ab-cdef-0123-456789abcdef");
  CHECK(c[0].detail.find("no DMI product UUID") != std::string::npos);
  CHECK(c.back().outcome == Outcome::failed);
  CHECK(c.back().detail.find("Connection refused") != std::string::npos);
  Rig none;
  auto n = none.run(apply_nvmeof, nvme_plan());
  REQUIRE(n.size() == 1);
  CHECK(n[0].outcome == Outcome::failed);
}

TEST_CASE("nvmeof: a target still starting is retried until it answers, or until the wait is over") {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  // A clock that sleeping moves, and each connect attempt too (to an absent host it takes seconds).
  std::chrono::steady_clock::time_point t{};
  std::vector<milliseconds> slept;
  std::function<void()> on_sleep;
  RetryClock clock{[&] { return t; }, [&](milliseconds d) {
                     slept.push_back(d);
                     t += d;
                     if (on_sleep) on_sleep();
                   }};

  Rig rig;
  rig.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  rig.host.connect_errno = ECONNREFUSED;
  Plan p = nvme_plan();
  auto changes = rig.run(apply_nvmeof, p);
  REQUIRE(changes.back().outcome == Outcome::failed);
  on_sleep = [&] {
    if (slept.size() == 3) rig.host.connect_errno = 0;  // the target comes up during the third wait
  };
  retry_nvmeof(p, rig.kernel, changes, seconds(30), seconds(2), clock);
  CHECK(slept.size() == 3);
  CHECK(rig.host.connects.size() == 1);  // the fake records only connections made
  CHECK(changes.back().outcome == Outcome::changed);
  CHECK(changes.back().detail.find("connected after 6.0 s of retries (first: ") != std::string::npos);
  CHECK(changes.back().detail.find("Connection refused") != std::string::npos);

  // Never answering, each attempt taking 3 s: the wait is wall time, not the sum of sleeps,
  // and the last step is cut to fit.
  Rig dead;
  dead.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  dead.host.connect_errno = ECONNREFUSED;
  auto failed = dead.run(apply_nvmeof, p);
  slept.clear();
  on_sleep = [&] { t += seconds(3); };
  retry_nvmeof(p, dead.kernel, failed, milliseconds(12000), seconds(2), clock);
  CHECK(slept == std::vector<milliseconds>{seconds(2), seconds(2), seconds(2)});  // at 0, 5 and 10 s
  CHECK(failed.back().outcome == Outcome::failed);
  CHECK(failed.back().detail.find("still failing after 15.0 s of retries") != std::string::npos);
  CHECK(failed.back().detail.find("of retries) (still") == std::string::npos);  // said once

  // Nothing failed: nothing waits.
  Rig fine;
  fine.host.files["/sys/class/dmi/id/product_uuid"] = "4C4C4544-0042-3510-8052-B4C04F333732";
  auto ok = fine.run(apply_nvmeof, p);
  REQUIRE(ok.back().outcome == Outcome::changed);
  slept.clear();
  retry_nvmeof(p, fine.kernel, ok, seconds(30), seconds(2), clock);
  CHECK(slept.empty());
}

TEST_CASE("apply_plan refuses a plan with problems or one touching the management interface") {
  Rig rig;
  Plan bad;
  bad.problems = {"the recipe wants 8 rails; 6 RDMA NIC(s) found"};
  auto c = apply_plan(bad, rig.kernel);
  REQUIRE(c.size() == 1);
  CHECK(c[0].outcome == Outcome::failed);
  Plan mgmt;
  mgmt.management = "eno1";
  mgmt.rails = {rail(0, "eno1", "mlx5_0")};
  c = apply_plan(mgmt, rig.kernel);
  REQUIRE(c.size() == 1);
  CHECK(c[0].detail == "the plan would touch the management interface eno1; refused");
}
