// Verify (verify.cc and the evaluators in hardware.cc, network.cc, fabric.cc, data_path.cc)
// against a plan made by make_plan, an inventory discovered "after apply", in-memory fakes
// of the kernel interfaces and a fake RDMA data path: each check's pass, its failures with
// expected vs observed, what is unsupported, and how required-ness turns into the result.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/fake_dcb.h"
#include "support/fake_rtnl.h"
#include "support/hardware_builder.h"
#include "support/fake_host.h"
#include "verify.h"

using namespace railyard;
using railyard::test::FakeDcb;
using railyard::test::FakeEthtool;
using railyard::test::FakeRtnl;

namespace {

// Ordinary files appear when written (the NVMe identity); kernel files are set up by each test.
struct OpenHost : railyard::test::FakeHost {
  OpenHost() { writes_create = true; }
};

using Stats = std::map<std::string, std::uint64_t>;

constexpr int kVlan = 200;
const std::string kNqn = "nqn.2024-01.example.storage:data0";
constexpr double kRate = 180000;  // what the fake data path measures, Mb/s

// The RDMA data path: a throughput for every pair of devices (`mbps`, or `rates` for one pair),
// or an error message for a pair. Every call is recorded.
class FakeDataPath : public RdmaDataPath {
 public:
  struct Call {
    std::string from;
    int from_gid = -1;
    std::string to;
    int to_gid = -1;
    std::size_t bytes = 0;
    int timeout_ms = 0;
  };
  std::vector<Call> calls;
  double mbps = kRate;
  std::map<std::pair<std::string, std::string>, double> rates;
  std::map<std::pair<std::string, std::string>, std::string> errors;

  Expected<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                              std::size_t bytes, int timeout_ms) override {
    calls.push_back({from_dev, from_gid, to_dev, to_gid, bytes, timeout_ms});
    if (auto e = errors.find({from_dev, to_dev}); e != errors.end())
      return Expected<double>::fail(Status::error(ETIMEDOUT, e->second));
    if (auto r = rates.find({from_dev, to_dev}); r != rates.end()) return Expected<double>::of(r->second);
    return Expected<double>::of(mbps);
  }
};

// FakeEthtool whose statistics move between reads: `samples[ifname]` answers in turn (the
// last one repeats); interfaces without samples answer FakeEthtool's `statistics`.
class SampledEthtool : public FakeEthtool {
 public:
  std::map<std::string, std::vector<Stats>> samples;
  std::map<std::string, std::size_t> reads;

  Expected<Stats> stats(const std::string& ifname) override {
    auto it = samples.find(ifname);
    if (it == samples.end() || it->second.empty()) return FakeEthtool::stats(ifname);
    std::size_t n = reads[ifname]++;
    return Expected<Stats>::of(it->second[std::min(n, it->second.size() - 1)]);
  }
};

// 4 KiB of PCI config space whose extended capabilities are AER at 0x100, then (when `acs`)
// ACS at 0x148 with control register `ctrl`.
std::vector<std::uint8_t> config_space(bool acs, int ctrl = 0) {
  std::vector<std::uint8_t> c(4096, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put32(0x100, (acs ? 0x148u << 20 : 0u) | (2u << 16) | 0x0001u);  // AER, version 2
  if (acs) {
    put32(0x148, (1u << 16) | 0x000du);  // ACS, version 1, last
    c[0x14c] = 0x5f;                      // capability register: every control implemented
    c[0x14e] = static_cast<std::uint8_t>(ctrl & 0xff);
    c[0x14f] = static_cast<std::uint8_t>(ctrl >> 8);
  }
  return c;
}

// Three switches, each with one GPU beside one rail NIC (ens0f0, ens1f0, ens2f0 on
// mlx5_0..2), plus the management port eno1.
Inventory three_rails() { return test::managed_server({{1, 1}, {1, 1}, {1, 1}}); }

// A node planned from `inventory` with a recipe every check applies to (VLAN 200, PCIe Gen4
// x16 at least, 200 Gb/s rails, ACS off, one NVMe-oF target on rail 0) and the kernel, the
// post-apply inventory and the data path set up as a successful apply leaves them, so that
// every check passes until a test breaks something.
struct Node {
  Recipe recipe;
  Inventory before;  // what the planner saw
  Inventory now;     // discovered again after apply
  Plan plan;
  FakeRtnl rtnl;
  FakeDcb dcb;
  SampledEthtool ethtool;
  OpenHost host;
  FakeDataPath rdma;
  Kernel kernel{rtnl, dcb, ethtool, host};

  explicit Node(const std::function<void(Recipe&)>& tweak = {}, Inventory inventory = three_rails())
      : before(std::move(inventory)) {
    recipe = test::recipe();
    recipe.hardware.gpu_count = static_cast<int>(before.gpus.size());
    recipe.hardware.gpu_device_ids = {"0x2330", "0x2324"};
    recipe.hardware.rail_speed_mbps = 200000;
    recipe.hardware.pcie_gen = 4;
    recipe.hardware.pcie_width = 16;
    recipe.fabric.vlan = kVlan;
    recipe.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24"};
    recipe.gpudirect.disable_acs = true;
    NvmeofTarget t;
    t.address = "198.18.0.250";
    t.nqn = kNqn;
    t.rail = 0;
    recipe.nvmeof = {t};
    recipe.selftest.pause_sample_ms = 100;  // the schema's minimum: keeps pause_storm fast
    if (tweak) tweak(recipe);
    plan = make_plan(before, recipe, test::node({"198.18.0.11", "198.18.1.11", "198.18.2.11"}));
    REQUIRE_MESSAGE(plan.ok(), (plan.problems.empty() ? std::string() : plan.problems.front()));
    applied();
  }
  Node(const Node&) = delete;  // `kernel` refers to this object's own members
  Node& operator=(const Node&) = delete;

  const RailPlan& rail(int i) const { return plan.rails.at(static_cast<std::size_t>(i)); }
  Nic& nic(const std::string& ifname) {
    for (auto& n : now.nics)
      if (n.ifname == ifname) return n;
    FAIL("no NIC " << ifname);
    throw std::logic_error("unreachable");
  }
  RdmaDevice& device(const std::string& name) {
    for (auto& d : now.rdma)
      if (d.name == name) return d;
    FAIL("no RDMA device " << name);
    throw std::logic_error("unreachable");
  }

  // Every check of the plan.
  std::vector<CheckResult> verify_all() { return verify(VerifyContext{plan, recipe, now, kernel, rdma}); }

  // The one planned check `name`, verified alone (the plan's rails and targets unchanged).
  CheckResult check(const std::string& name) {
    Plan one = plan;
    one.checks.clear();
    for (const auto& c : plan.checks)
      if (c.name == name) one.checks.push_back(c);
    REQUIRE_MESSAGE(one.checks.size() == 1, "the plan has no check " << name);
    auto results = verify(VerifyContext{one, recipe, now, kernel, rdma});
    REQUIRE(results.size() == 1);
    return results.front();
  }

 private:
  // What a successful apply leaves: links, VLANs and addresses, PFC and the DSCP app
  // entries, trust, ECN, ToS, the storm timeout, peermem, ACS off, NVMe-oF connected; and
  // after it, links at full PCIe width, rails at speed, RoCE v2 GIDs on the VLAN devices.
  void applied() {
    now = before;
    for (auto& g : now.gpus) {
      g.pci.max_link_speed = g.pci.current_link_speed;
      g.pci.max_link_width = g.pci.current_link_width;
    }
    for (auto& n : now.nics) {
      if (n.management) continue;
      n.speed_mbps = 200000;
      n.pci.current_link_speed = n.pci.max_link_speed = "32.0 GT/s PCIe";
      n.pci.current_link_width = n.pci.max_link_width = 16;
    }
    rtnl.add_link("eno1", 1500, true);
    rtnl.addrs["eno1"] = {"10.0.0.5/24"};
    rtnl.route_entries.push_back({"default", "eno1", "", 254});
    for (const auto& r : plan.rails) {
      std::string vlan_dev = r.ifname + "." + std::to_string(kVlan);
      for (auto& d : now.rdma)
        if (d.name == r.rdma_device)
          for (auto& p : d.ports) p.gids = {test::gid(2, vlan_dev, "IB/RoCE v1"), test::gid(3, vlan_dev)};
      rtnl.add_link(r.ifname, 9000, true);
      LinkInfo& v = rtnl.add_link(r.netdev, 9000, true);
      v.vlan_id = kVlan;
      v.parent = r.ifname;
      rtnl.addrs[r.netdev] = {*r.address};
      rtnl.route_entries.push_back({r.address->substr(0, 8) + ".0/24", r.netdev, r.address->substr(0, 11), 254});
      dcb.pfcs[r.ifname] = IeeePfc{8, 0x08, 0, 0};
      dcb.tables[r.ifname] = {DcbApp{5, 3, 26}, DcbApp{5, 6, 48}};
      host.files["/sys/class/net/" + r.ifname + "/qos/trust"] = "dscp";
      host.files["/sys/class/net/" + r.ifname + "/ecn/roce_np/enable/3"] = "1";
      host.files["/sys/class/net/" + r.ifname + "/ecn/roce_rp/enable/3"] = "1";
      host.files["/sys/kernel/config/rdma_cm/" + r.rdma_device + "/ports/1/default_roce_tos"] =
          std::to_string(r.roce_tos);
      ethtool.tunables[{r.ifname, kEthtoolPfcPreventionTout}] = 100;
      ethtool.statistics[r.ifname] = {{"rx_prio3_pause", 10}, {"tx_prio3_pause", 20}, {"rx_prio0_pause", 0}};
    }
    host.modules.insert("nvidia_peermem");
    for (const auto& bdf : plan.acs_disable) host.config[bdf] = config_space(true, 0);
    NvmeController c;
    c.name = "nvme1";
    c.transport = "rdma";
    c.address = "traddr=198.18.0.250,trsvcid=4420,src_addr=198.18.0.11";
    c.subsysnqn = kNqn;
    c.state = "live";
    now.nvme.push_back(c);
    host.files["/dev/nvme1n1"] = std::string(8192, 'x');
  }
};

// "name: status [expected | observed] (detail)", one a line: what a failed CHECK shows.
std::string listing(const std::vector<CheckResult>& results) {
  std::string out;
  for (const auto& r : results)
    out += r.name + ": " + to_string(r.status) + " [" + r.expected + " | " + r.observed + "]" +
           (r.detail.empty() ? "" : " (" + r.detail + ")") + (r.required ? "" : " not required") + "\n";
  return out;
}

std::string text(const CheckResult& r) { return listing({r}); }

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// The node's result had verify's results been the whole report.
bool node_passes(const std::vector<CheckResult>& results) {
  Report report;
  report.checks = results;
  return report.passed();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The whole plan

TEST_CASE("verify: a healthy node passes every check the plan lists, in the plan's order") {
  Node n;
  auto results = n.verify_all();
  CAPTURE(listing(results));
  REQUIRE(results.size() == n.plan.checks.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    CAPTURE(results[i].name);
    CHECK(results[i].name == n.plan.checks[i].name);
    CHECK(results[i].expected == n.plan.checks[i].expected);
    CHECK(results[i].required == n.plan.checks[i].required);
    CHECK(results[i].status == CheckStatus::pass);
  }
  CHECK(node_passes(results));
  // The plan has every kind of check this file covers.
  std::vector<std::string> names;
  for (const auto& r : results) names.push_back(r.name);
  for (std::string want :
       {"gpu.count", "gpu.model", "gpu.0.pcie_link", "gpu.2.pcie_link", "rails.count", "rail.0.affinity",
        "rail.0.pcie_link", "rail.0.link", "rail.0.speed", "rail.0.mtu", "rail.0.vlan", "rail.0.address",
        "rail.0.no_default_route", "rail.0.pfc", "rail.0.trust", "rail.0.dscp_map", "rail.0.ecn", "rail.0.roce_tos",
        "rail.0.storm_prevention", "rail.0.rdma_port", "rail.0.roce_v2_gid", "rail.0.rdma_write", "rail.0.pause_storm",
        "rail.2.rdma_write", "rails.cross_rdma_write", "nvmeof.0.connected", "nvmeof.0.namespace_read",
        "gpudirect.peermem", "gpudirect.acs.0000:11:00.0"}) {
    CAPTURE(want);
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
}

TEST_CASE("verify: a check the plan does not mark required turns a failure into a warning") {
  Node n;
  n.rtnl.links["ens0f0.200"].mtu = 1500;
  auto r = n.check("rail.0.mtu");
  CHECK(r.status == CheckStatus::fail);
  for (auto& c : n.plan.checks)
    if (c.name == "rail.0.mtu") c.required = false;
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
  n.plan.checks = {{"bogus.check", "anything", true},
                   {"rail.7.mtu", "9000", true},           // no rail 7
                   {"rail.0.colour", "blue", true},        // no such rail check
                   {"nvmeof.3.connected", "live", true}};  // no target 3
  auto results = n.verify_all();
  CAPTURE(listing(results));
  REQUIRE(results.size() == 4);
  for (const auto& r : results) {
    CAPTURE(r.name);
    CHECK(r.status == CheckStatus::skip);
    CHECK(r.detail == "this agent has no evaluator for the check");
    CHECK_FALSE(r.failing());
  }
  CHECK(node_passes(results));
}

// ---------------------------------------------------------------------------------------------
// GPUs

TEST_CASE("gpu.count: the GPUs discovered after apply against the recipe's count") {
  Node n;
  auto r = n.check("gpu.count");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "3");
  CHECK(r.observed == "3");

  n.now.gpus.pop_back();  // fell off the bus
  r = n.check("gpu.count");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "2");
  CHECK(contains(r.detail, "nvidia-smi"));
}

TEST_CASE("gpu.model: every GPU is one of the recipe's device ids") {
  Node n;
  auto r = n.check("gpu.model");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "device 0x2330 or 0x2324");
  CHECK(r.observed == "device 0x2330");

  n.now.gpus[1].pci.device = "0x20b5";
  r = n.check("gpu.model");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0000:32:00.0 is 0x20b5");
}

TEST_CASE("gpu.N.pcie_link: at the device's maximum and at least the recipe's passes") {
  Node n;
  auto r = n.check("gpu.1.pcie_link");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == ">= Gen4 x16");
  CHECK(r.observed == "32.0 GT/s PCIe x16");
  CHECK(r.detail.empty());
}

TEST_CASE("gpu.N.pcie_link: below the recipe fails, and says when the device could do better") {
  Node n;
  n.now.gpus[1].pci.current_link_speed = "8.0 GT/s PCIe";  // Gen3 on a Gen5 device
  auto r = n.check("gpu.1.pcie_link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "8.0 GT/s PCIe x16");
  CHECK(contains(r.detail, "downtrained: the device can do 32.0 GT/s PCIe x16"));

  Node w;
  w.now.gpus[0].pci.current_link_width = 8;  // Gen5 x8: the width is below the recipe's x16
  r = w.check("gpu.0.pcie_link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "32.0 GT/s PCIe x8");
  CHECK(contains(r.detail, "downtrained"));

  Node m;  // below the recipe at the device's own maximum: a slow device, nothing to reseat
  m.now.gpus[2].pci.current_link_speed = m.now.gpus[2].pci.max_link_speed = "8.0 GT/s PCIe";
  r = m.check("gpu.2.pcie_link");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.detail.empty());
}

TEST_CASE("gpu.N.pcie_link: downtrained but still at least the recipe's link warns") {
  Node n;
  n.now.gpus[0].pci.current_link_speed = "16.0 GT/s PCIe";  // Gen4: the recipe's minimum
  auto r = n.check("gpu.0.pcie_link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "16.0 GT/s PCIe x16");
  CHECK(contains(r.detail, "downtrained"));
  CHECK(contains(r.detail, "32.0 GT/s PCIe x16"));
  CHECK(r.required);
  CHECK(node_passes({r}));
}

TEST_CASE("gpu.N.pcie_link: a GPU missing after apply fails its link check") {
  Node n;
  n.now.gpus.pop_back();
  auto r = n.check("gpu.2.pcie_link");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "GPU 0000:52:00.0 missing");  // named by the address the plan saw
}

// ---------------------------------------------------------------------------------------------
// Rails: presence, affinity, PCIe, link, speed

TEST_CASE("rails.count: the planned rail NICs still present after apply") {
  Node n;
  auto r = n.check("rails.count");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "3");

  std::erase_if(n.now.nics, [](const Nic& x) { return x.ifname == "ens2f0"; });
  r = n.check("rails.count");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.expected == "3");
  CHECK(r.observed == "2");
  CHECK(contains(r.detail, "disappeared"));
}

TEST_CASE("rail.N.affinity: a GPU beside its NIC passes; across the CPU interconnect (SYS) fails") {
  Node n;
  auto r = n.check("rail.0.affinity");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "at worst PXB");
  CHECK((r.observed == "PIX" || r.observed == "PXB"));

  // One GPU on NUMA node 0, its only possible rail NIC on NUMA node 1.
  auto sys_tweak = [](Recipe& rc) {
    rc.hardware.gpu_count = 1;
    rc.nvmeof.clear();
  };
  Inventory far = test::server({{1, 0, 0}, {0, 1, 1}});
  test::add_management(far);
  Node s(sys_tweak, far);
  REQUIRE(s.plan.rails.size() == 1);
  r = s.check("rail.0.affinity");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "SYS");
  CHECK(contains(r.detail, "far apart"));

  Node lax(
      [&](Recipe& rc) {
        sys_tweak(rc);
        rc.hardware.max_affinity = Affinity::SYS;
      },
      far);
  r = lax.check("rail.0.affinity");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "SYS");
}

TEST_CASE("rail.N.pcie_link: the rail NIC's link against the recipe") {
  Node n;
  auto r = n.check("rail.1.pcie_link");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "32.0 GT/s PCIe x16");

  n.nic("ens1f0").pci.current_link_speed = "8.0 GT/s PCIe";
  r = n.check("rail.1.pcie_link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "8.0 GT/s PCIe x16");

  n.nic("ens1f0").pci.current_link_speed = "16.0 GT/s PCIe";
  r = n.check("rail.1.pcie_link");
  CHECK(r.status == CheckStatus::warn);
  CHECK(contains(r.detail, "downtrained"));

  std::erase_if(n.now.nics, [](const Nic& x) { return x.ifname == "ens1f0"; });
  r = n.check("rail.1.pcie_link");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "absent");
  CHECK(r.detail == "ens1f0 is gone");
}

TEST_CASE("rail.N.link: operstate up passes; down fails pointing at the cable") {
  Node n;
  auto r = n.check("rail.0.link");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "up");

  n.nic("ens0f0").operstate = "down";
  r = n.check("rail.0.link");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "down");
  CHECK(contains(r.detail, "no carrier"));

  std::erase_if(n.now.nics, [](const Nic& x) { return x.ifname == "ens0f0"; });
  CHECK(n.check("rail.0.link").observed == "absent");
}

TEST_CASE("rail.N.speed: at least the recipe's rail speed") {
  Node n;
  auto r = n.check("rail.2.speed");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == ">= 200000 Mb/s");
  CHECK(r.observed == "200000 Mb/s");

  n.nic("ens2f0").speed_mbps = 400000;
  CHECK(n.check("rail.2.speed").status == CheckStatus::pass);

  n.nic("ens2f0").speed_mbps = 100000;
  r = n.check("rail.2.speed");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "100000 Mb/s");
  CHECK(contains(r.detail, "below the rail speed"));

  n.nic("ens2f0").speed_mbps = -1;
  r = n.check("rail.2.speed");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "unknown");
}

// ---------------------------------------------------------------------------------------------
// Network: MTU, VLAN, address, default routes (read back over rtnetlink)

TEST_CASE("rail.N.mtu: the address-carrying device (the VLAN) at the planned MTU") {
  Node n;
  auto r = n.check("rail.0.mtu");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "9000");
  CHECK(r.observed == "9000");

  n.rtnl.links["ens0f0.200"].mtu = 1500;  // the parent is still at 9000
  r = n.check("rail.0.mtu");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "1500");

  n.rtnl.links.erase("ens0f0.200");
  r = n.check("rail.0.mtu");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);  // ENODEV: a missing device is a failure
  CHECK(r.observed == "error");
  CHECK(contains(r.detail, "ens0f0.200"));
}

TEST_CASE("rail.N.vlan: the VLAN device with the planned id on the rail's NIC") {
  Node n;
  auto r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "ens1f0.200 id 200");
  CHECK(r.observed == "ens1f0.200 id 200");

  n.rtnl.links["ens1f0.200"].vlan_id = 100;
  r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens1f0.200 id 100 on ens1f0");

  n.rtnl.links["ens1f0.200"].vlan_id.reset();
  r = n.check("rail.1.vlan");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ens1f0.200 untagged on ens1f0");

  n.rtnl.links["ens1f0.200"].vlan_id = kVlan;
  n.rtnl.links["ens1f0.200"].parent = "ens0f0";  // right id, wrong NIC
  CHECK(n.check("rail.1.vlan").status == CheckStatus::fail);

  n.rtnl.links.erase("ens1f0.200");
  CHECK(n.check("rail.1.vlan").status == CheckStatus::fail);
}

TEST_CASE("rail.N.address: the planned address on the VLAN device") {
  Node n;
  auto r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "198.18.1.11/24 on ens1f0.200");
  CHECK(r.observed == "198.18.1.11/24 on ens1f0.200");

  n.rtnl.addrs["ens1f0.200"] = {"198.18.1.12/24", "169.254.3.1/16"};
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "198.18.1.12/24 169.254.3.1/16");

  n.rtnl.addrs["ens1f0.200"].clear();
  n.rtnl.addrs["ens1f0"] = {"198.18.1.11/24"};  // on the parent: untagged traffic
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no address");

  n.rtnl.fail["addresses"] = EIO;
  r = n.check("rail.1.address");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}

TEST_CASE("rail.N.no_default_route: no default route in the main table via the rail or its NIC") {
  Node n;
  auto r = n.check("rail.0.no_default_route");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);  // the default via eno1 is none of the rail's business
  CHECK(r.expected == "no default route via ens0f0.200");
  CHECK(r.observed == "none via ens0f0.200");

  n.rtnl.route_entries.push_back({"default", "ens1f0.200", "", 100});  // another table
  CHECK(n.check("rail.1.no_default_route").status == CheckStatus::pass);

  n.rtnl.route_entries.push_back({"default", "ens0f0.200", "", 254});
  r = n.check("rail.0.no_default_route");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "default route via ens0f0.200");
  CHECK(contains(r.detail, "DHCP"));
  CHECK(n.check("rail.1.no_default_route").status == CheckStatus::pass);

  n.rtnl.route_entries.push_back({"default", "ens2f0", "", 254});  // via the untagged parent
  r = n.check("rail.2.no_default_route");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "default route via ens2f0");

  n.rtnl.fail["routes"] = EPERM;
  r = n.check("rail.1.no_default_route");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}

// ---------------------------------------------------------------------------------------------
// Fabric: PFC, DSCP map, trust, ECN, ToS, storm prevention

TEST_CASE("rail.N.pfc: the lossless priority as applied") {
  Node n;
  auto r = n.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.required);
  CHECK(r.expected == "priority 3 lossless");
  CHECK(r.observed == "pfc_en 0x08");

  n.dcb.pfcs["ens0f0"].pfc_en = 0;  // reset by DCBX firmware
  r = n.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pfc_en 0x00");
  CHECK(contains(r.detail, "DCBX"));

  n.dcb.pfcs["ens0f0"].pfc_en = 0x18;  // an extra lossless priority is not what was applied
  r = n.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pfc_en 0x18");
}

TEST_CASE("rail.N.pfc: a device without DCB is unsupported, which fails the node only when PFC is required") {
  Node n;
  n.dcb.fail["pfc"] = EOPNOTSUPP;
  auto r = n.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "unsupported");
  CHECK(contains(r.detail, "ens0f0"));
  CHECK(r.required);
  CHECK(r.failing());
  CHECK_FALSE(node_passes({r}));

  Node b([](Recipe& rc) { rc.fabric.pfc = Requirement::best_effort; });
  b.dcb.fail["pfc"] = EOPNOTSUPP;
  r = b.check("rail.0.pfc");
  CAPTURE(text(r));
  CHECK(r.expected == "priority 3 lossless (best-effort)");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK_FALSE(r.required);
  CHECK_FALSE(r.failing());
  CHECK(node_passes({r}));

  b.dcb.fail.clear();
  b.dcb.pfcs["ens0f0"].pfc_en = 0;
  r = b.check("rail.0.pfc");
  CHECK(r.status == CheckStatus::warn);  // best-effort: differs, but never fails the node
  CHECK(r.observed == "pfc_en 0x00");
}

TEST_CASE("rail.N.pfc: a missing interface (ENODEV) is a failure, not unsupported") {
  Node n;
  n.dcb.pfcs.erase("ens1f0");
  auto r = n.check("rail.1.pfc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}

TEST_CASE("rail.N.pfc: without PFC in the recipe no PFC, trust, DSCP map, storm or pause check is planned") {
  Node n([](Recipe& rc) { rc.fabric.pfc = Requirement::off; });
  for (const auto& c : n.plan.checks) {
    CAPTURE(c.name);
    for (const char* what : {".pfc", ".trust", ".dscp_map", ".storm_prevention", ".pause_storm"})
      CHECK_FALSE(c.name.ends_with(what));
  }
}

TEST_CASE("rail.N.dscp_map: RoCE's DSCP mapped to the lossless priority") {
  Node n;
  auto r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "DSCP 26 → priority 3");

  n.dcb.tables["ens2f0"] = {DcbApp{5, 0, 26}, DcbApp{5, 6, 48}};  // DSCP 26 on priority 0
  r = n.check("rail.2.dscp_map");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "2 app entries, none DSCP 26 → 3");

  n.dcb.tables["ens2f0"] = {DcbApp{1, 3, 0x8915}};  // an EtherType entry, not DSCP
  r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::fail);

  n.dcb.fail["apps"] = EOPNOTSUPP;
  r = n.check("rail.2.dscp_map");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.failing());
}

TEST_CASE("rail.N.trust: the qos/trust file, or the DSCP app entries where the driver has none") {
  Node n;
  auto r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "dscp");
  CHECK(r.observed == "dscp");
  CHECK(r.detail.empty());

  n.host.files["/sys/class/net/ens0f0/qos/trust"] = "pcp";
  r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "pcp");

  // Upstream mlx5: no trust file; DSCP app entries switch the port to DSCP trust.
  n.host.files.erase("/sys/class/net/ens0f0/qos/trust");
  r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "dscp");
  CHECK(contains(r.detail, "implied"));

  // No file and no DSCP entry: nothing shows DSCP trust; required, so the node fails.
  n.dcb.tables["ens0f0"].clear();
  r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());

  // No file and the app table unreadable.
  n.dcb.fail["apps"] = EOPNOTSUPP;
  r = n.check("rail.0.trust");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.failing());
}

TEST_CASE("rail.N.trust: DSCP app entries imply DSCP trust, never the PCP trust a recipe asks for") {
  Node n([](Recipe& rc) { rc.fabric.trust = Trust::pcp; });
  n.host.files.erase("/sys/class/net/ens0f0/qos/trust");
  auto r = n.check("rail.0.trust");
  CAPTURE(text(r));
  CHECK(r.expected == "pcp");
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());

  n.host.files["/sys/class/net/ens0f0/qos/trust"] = "pcp";
  CHECK(n.check("rail.0.trust").status == CheckStatus::pass);
}

TEST_CASE("rail.N.ecn: DCQCN notification and reaction points on the lossless priority") {
  Node n;
  auto r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "enabled on priority 3 (best-effort)");
  CHECK_FALSE(r.required);
  CHECK(r.observed == "np 1, rp 1");

  // ECN is best-effort by default: off on the NIC is a warning.
  n.host.files["/sys/class/net/ens1f0/ecn/roce_np/enable/3"] = "0";
  r = n.check("rail.1.ecn");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "np 0, rp 1");
  CHECK(node_passes({r}));

  // No ECN files (upstream mlx5, virtio): unsupported, which best-effort tolerates.
  n.host.files.erase("/sys/class/net/ens1f0/ecn/roce_np/enable/3");
  r = n.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(node_passes({r}));

  Node q([](Recipe& rc) { rc.fabric.ecn = Requirement::required; });
  q.host.files["/sys/class/net/ens1f0/ecn/roce_rp/enable/3"] = "0";
  r = q.check("rail.1.ecn");
  CHECK(r.required);
  CHECK(r.expected == "enabled on priority 3");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "np 1, rp 0");
  q.host.files.erase("/sys/class/net/ens1f0/ecn/roce_rp/enable/3");
  r = q.check("rail.1.ecn");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK_FALSE(node_passes({r}));
}

TEST_CASE("rail.N.roce_tos: rdma_cm's default ToS for the rail's RDMA device") {
  Node n;
  auto r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "106");  // DSCP 26 << 2 | ECT(0)
  CHECK(r.observed == "106");

  const std::string path = "/sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_tos";
  n.host.files[path] = "0";
  r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0");

  n.host.files.erase(path);
  r = n.check("rail.2.roce_tos");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(contains(r.detail, path));
}

TEST_CASE("rail.N.storm_prevention: the PFC storm prevention timeout tunable") {
  Node n;
  auto r = n.check("rail.0.storm_prevention");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "100 ms");
  CHECK(r.observed == "100 ms");

  n.ethtool.tunables[{"ens0f0", kEthtoolPfcPreventionTout}] = 0;
  r = n.check("rail.0.storm_prevention");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0 ms");

  n.ethtool.tunables.erase({"ens0f0", kEthtoolPfcPreventionTout});  // the driver lacks it
  r = n.check("rail.0.storm_prevention");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "unsupported");
}

// ---------------------------------------------------------------------------------------------
// Pause counters

TEST_CASE("rail.N.pause_storm: two samples pause_sample_ms apart, under the threshold") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 10}, {"tx_prio3_pause", 5}},
                                 {{"rx_prio3_pause", 40}, {"tx_prio3_pause", 50}}};
  auto started = std::chrono::steady_clock::now();
  auto r = n.check("rail.0.pause_storm");
  auto took = std::chrono::steady_clock::now() - started;
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "< 1000 pause frames/s");
  CHECK(r.observed == "rx 300/s, tx 450/s");  // 30 and 45 frames in 0.1 s
  CHECK(n.ethtool.reads["ens0f0"] == 2);
  CHECK(took >= std::chrono::milliseconds(100));
  CHECK(took < std::chrono::milliseconds(1000));  // the recipe's interval, not the default 1 s
}

TEST_CASE("rail.N.pause_storm: a NIC sending pauses fails naming tx; one being paused names rx") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 0}, {"tx_prio3_pause", 0}},
                                 {{"rx_prio3_pause", 10}, {"tx_prio3_pause", 500}}};
  auto r = n.check("rail.0.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "rx 100/s, tx 5000/s");
  CHECK(contains(r.detail, "this NIC is sending a pause storm"));

  n.ethtool.samples["ens1f0"] = {{{"rx_prio3_pause", 1000}, {"tx_prio3_pause", 7}},
                                 {{"rx_prio3_pause", 1100}, {"tx_prio3_pause", 7}}};
  r = n.check("rail.1.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "rx 1000/s, tx 0/s");  // exactly the threshold is a storm
  CHECK(contains(r.detail, "the switch pauses this NIC"));
}

TEST_CASE("rail.N.pause_storm: without per-priority pause counters the check is unsupported") {
  Node n;
  n.ethtool.statistics["ens2f0"] = {{"rx_packets", 1}, {"rx_prio0_pause", 0}, {"tx_prio0_pause", 0}};
  auto started = std::chrono::steady_clock::now();
  auto r = n.check("rail.2.pause_storm");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.observed == "no rx_prio3_pause/tx_prio3_pause counters");
  CHECK(contains(r.detail, "per priority"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(100));  // no wait for nothing

  n.ethtool.statistics.erase("ens2f0");  // no statistics at all
  r = n.check("rail.2.pause_storm");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(r.required);  // PFC required: the node fails
  CHECK_FALSE(node_passes({r}));
}

// Counters present in the first sample and gone from the second fail the check; nothing throws.
TEST_CASE("rail.N.pause_storm: counters that vanish between the samples do not throw") {
  Node n;
  n.ethtool.samples["ens0f0"] = {{{"rx_prio3_pause", 0}, {"tx_prio3_pause", 0}}, {{"rx_packets", 5}}};
  CheckResult r;
  CHECK_NOTHROW(r = n.check("rail.0.pause_storm"));
  CHECK(r.status != CheckStatus::pass);
}

// ---------------------------------------------------------------------------------------------
// RDMA ports and GIDs

TEST_CASE("rail.N.rdma_port: the rail's RDMA port is ACTIVE") {
  Node n;
  auto r = n.check("rail.1.rdma_port");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "mlx5_1 port 1 ACTIVE");

  n.device("mlx5_1").ports[0].state = "DOWN";
  r = n.check("rail.1.rdma_port");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "mlx5_1 port 1 DOWN");

  n.device("mlx5_1").ports[0].port = 2;
  r = n.check("rail.1.rdma_port");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "mlx5_1 port 1 absent");

  std::erase_if(n.now.rdma, [](const RdmaDevice& d) { return d.name == "mlx5_1"; });
  r = n.check("rail.1.rdma_port");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no RDMA device");
  CHECK(contains(r.detail, "ens1f0"));
}

TEST_CASE("rail.N.rdma_port: a device renamed since planning is found by its netdev") {
  Node n;
  n.device("mlx5_0").name = "rocep19s0";
  auto r = n.check("rail.0.rdma_port");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "rocep19s0 port 1 ACTIVE");
}

TEST_CASE("rail.N.roce_v2_gid: a RoCE v2 IPv4 GID on the rail's netdev, the VLAN device") {
  Node n;
  auto r = n.check("rail.0.roce_v2_gid");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "RoCE v2 IPv4 GID on ens0f0.200");
  CHECK(r.observed == "index 3 on ens0f0.200");

  // Only on the untagged parent: traffic would leave untagged.
  n.device("mlx5_0").ports[0].gids = {test::gid(2, "ens0f0", "IB/RoCE v1"), test::gid(3, "ens0f0")};
  r = n.check("rail.0.roce_v2_gid");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "none");
  CHECK(contains(r.detail, "ens0f0.200"));

  // A RoCE v1 GID on the VLAN device is not enough.
  n.device("mlx5_0").ports[0].gids = {test::gid(2, "ens0f0.200", "IB/RoCE v1")};
  CHECK(n.check("rail.0.roce_v2_gid").status == CheckStatus::fail);

  // The lowest matching index wins.
  n.device("mlx5_0").ports[0].gids = {test::gid(7, "ens0f0.200"), test::gid(5, "ens0f0.200"), test::gid(1, "ens0f0")};
  CHECK(n.check("rail.0.roce_v2_gid").observed == "index 5 on ens0f0.200");
}

// ---------------------------------------------------------------------------------------------
// The RDMA data path

TEST_CASE("rail.N.rdma_write: the rail's device to itself over its VLAN's RoCE v2 GID") {
  Node n;
  n.device("mlx5_1").ports[0].gids = {test::gid(3, "ens1f0"), test::gid(5, "ens1f0.200")};
  auto r = n.check("rail.1.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "1048576 bytes written and verified");
  CHECK(r.observed == "1048576 bytes verified at 180000 Mb/s");
  REQUIRE(n.rdma.calls.size() == 1);
  const auto& c = n.rdma.calls[0];
  CHECK(c.from == "mlx5_1");
  CHECK(c.from_gid == 5);
  CHECK(c.to == "mlx5_1");
  CHECK(c.to_gid == 5);
  CHECK(c.bytes == 1048576);
  CHECK(c.timeout_ms == n.recipe.selftest.check_timeout_ms);
}

TEST_CASE("rail.N.rdma_write: below the recipe's rdma_min_mbps fails") {
  Node n([](Recipe& rc) {
    rc.selftest.rdma_min_mbps = 100000;
    rc.selftest.rdma_bytes = 4096;
  });
  n.rdma.mbps = 100000;  // exactly the minimum passes
  CHECK(n.check("rail.0.rdma_write").status == CheckStatus::pass);

  n.rdma.mbps = 42000.7;
  auto r = n.check("rail.0.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "4096 bytes verified at 42000 Mb/s");
  CHECK(contains(r.detail, "below the recipe's 100000 Mb/s"));
  CHECK(n.rdma.calls.back().bytes == 4096);
}

TEST_CASE("rail.N.rdma_write: rdma_min_mbps 0 (the default) sets no minimum") {
  Node n;
  n.rdma.mbps = 1;
  auto r = n.check("rail.0.rdma_write");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "1048576 bytes verified at 1 Mb/s");
}

TEST_CASE("rail.N.rdma_write: an error from the data path fails with its message") {
  Node n;
  n.rdma.errors[{"mlx5_2", "mlx5_2"}] = "mlx5_2: RDMA WRITE completion timed out after 10000 ms";
  auto r = n.check("rail.2.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "failed");
  CHECK(r.detail == "mlx5_2: RDMA WRITE completion timed out after 10000 ms");
}

TEST_CASE("rail.N.rdma_write: without a RoCE v2 GID on the VLAN nothing is sent") {
  Node n;
  n.device("mlx5_0").ports[0].gids = {test::gid(3, "ens0f0")};
  auto r = n.check("rail.0.rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no RoCE v2 GID");
  CHECK(contains(r.detail, "ens0f0.200"));
  CHECK(n.rdma.calls.empty());

  std::erase_if(n.now.rdma, [](const RdmaDevice& d) { return d.name == "mlx5_0"; });
  r = n.check("rail.0.rdma_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no RDMA device");
  CHECK(n.rdma.calls.empty());
}

TEST_CASE("rails.cross_rdma_write: every pair of rails, in order") {
  Node n;
  n.rdma.rates[{"mlx5_0", "mlx5_2"}] = 150000;
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "0→1 180000 Mb/s, 0→2 150000 Mb/s, 1→2 180000 Mb/s");
  REQUIRE(n.rdma.calls.size() == 3);
  std::vector<std::string> pairs;
  for (const auto& c : n.rdma.calls)
    pairs.push_back(c.from + ":" + std::to_string(c.from_gid) + "→" + c.to + ":" + std::to_string(c.to_gid));
  CHECK(pairs == std::vector<std::string>{"mlx5_0:3→mlx5_1:3", "mlx5_0:3→mlx5_2:3", "mlx5_1:3→mlx5_2:3"});
}

TEST_CASE("rails.cross_rdma_write: one failing pair fails the check, names it, and every pair is still tried") {
  Node n;
  n.rdma.errors[{"mlx5_0", "mlx5_1"}] = "mlx5_0 → mlx5_1: retry exceeded";
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(n.rdma.calls.size() == 3);
  CHECK(r.observed == "0→2 180000 Mb/s, 1→2 180000 Mb/s");
  CHECK(r.detail == "0→1: mlx5_0 → mlx5_1: retry exceeded");

  n.rdma.errors[{"mlx5_1", "mlx5_2"}] = "timeout";
  r = n.check("rails.cross_rdma_write");
  CHECK(r.detail == "0→1: mlx5_0 → mlx5_1: retry exceeded; 1→2: timeout");
  CHECK(r.observed == "0→2 180000 Mb/s");

  n.rdma.errors[{"mlx5_0", "mlx5_2"}] = "down";
  r = n.check("rails.cross_rdma_write");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "failed");
}

TEST_CASE("rails.cross_rdma_write: a rail without a GID fails its pairs; the others are still tested") {
  Node n;
  n.device("mlx5_2").ports[0].gids.clear();
  auto r = n.check("rails.cross_rdma_write");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  REQUIRE(n.rdma.calls.size() == 1);
  CHECK(n.rdma.calls[0].from == "mlx5_0");
  CHECK(n.rdma.calls[0].to == "mlx5_1");
  CHECK(r.observed == "0→1 180000 Mb/s");
  CHECK(contains(r.detail, "0→2: no RoCE v2 IPv4 GID on ens2f0.200"));
  CHECK(contains(r.detail, "1→2: no RoCE v2 IPv4 GID on ens2f0.200"));
}

TEST_CASE("rails.cross_rdma_write: planned only with two rails or more") {
  Inventory one = test::managed_server({{1, 1}});
  Node n(
      [](Recipe& rc) {
        rc.addressing.subnets = {"198.18.0.0/24"};
      },
      one);
  for (const auto& c : n.plan.checks) CHECK(c.name != "rails.cross_rdma_write");
  Node two([](Recipe&) {}, test::managed_server({{1, 1}, {1, 1}}));
  auto r = two.check("rails.cross_rdma_write");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "0→1 180000 Mb/s");
}

// ---------------------------------------------------------------------------------------------
// NVMe over Fabrics

TEST_CASE("nvmeof.N.connected: a live controller for the target's NQN and address over the planned transport") {
  Node n;
  auto r = n.check("nvmeof.0.connected");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == kNqn + " live over rdma");
  CHECK(r.observed == "nvme1 live over rdma");

  n.now.nvme[0].state = "connecting";
  r = n.check("nvmeof.0.connected");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "nvme1 connecting over rdma");

  n.now.nvme[0].state = "live";
  n.now.nvme[0].transport = "tcp";  // fell back to TCP
  r = n.check("nvmeof.0.connected");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "nvme1 live over tcp");
}

TEST_CASE("nvmeof.N.connected: no controller for the target fails with where it should be") {
  Node n;
  n.now.nvme[0].address = "traddr=198.18.0.251,trsvcid=4420";  // another target
  auto r = n.check("nvmeof.0.connected");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "no controller");
  CHECK(contains(r.detail, "198.18.0.250:4420"));
  CHECK(contains(r.detail, "rail 0"));

  n.now.nvme[0].address = "traddr=198.18.0.250,trsvcid=4420";
  n.now.nvme[0].subsysnqn = "nqn.2024-01.example.storage:other";
  CHECK(n.check("nvmeof.0.connected").status == CheckStatus::fail);
  CHECK(n.check("nvmeof.0.namespace_read").observed == "no controller");
}

TEST_CASE("nvmeof.N.namespace_read: the first namespace's first 4 KiB") {
  Node n;
  auto r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "first namespace readable");
  CHECK(r.observed == "/dev/nvme1n1: 4096 bytes read");

  n.host.files["/dev/nvme1n1"] = std::string(512, 'x');  // short, but readable
  CHECK(n.check("nvmeof.0.namespace_read").observed == "/dev/nvme1n1: 512 bytes read");

  n.host.files.erase("/dev/nvme1n1");
  r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status != CheckStatus::pass);
  CHECK(r.failing());
}

TEST_CASE("nvmeof.N: a best-effort target's checks warn instead of failing") {
  Node n([](Recipe& rc) { rc.nvmeof[0].required = false; });
  n.now.nvme.clear();
  auto results = n.verify_all();
  for (const auto& r : results)
    if (r.name.starts_with("nvmeof.")) {
      CAPTURE(text(r));
      CHECK_FALSE(r.required);
      CHECK(r.status == CheckStatus::warn);
    }
  CHECK(node_passes(results));
}

// A connected controller without a readable namespace device is a failure, not "unsupported".
TEST_CASE("nvmeof.N.namespace_read: a missing namespace device is a failure, not unsupported") {
  Node n;
  n.host.files.erase("/dev/nvme1n1");
  auto r = n.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  Node b([](Recipe& rc) { rc.nvmeof[0].required = false; });
  b.host.files.erase("/dev/nvme1n1");
  r = b.check("nvmeof.0.namespace_read");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
}

// ---------------------------------------------------------------------------------------------
// GPUDirect

TEST_CASE("gpudirect.peermem: nvidia_peermem loaded") {
  Node n;
  auto r = n.check("gpudirect.peermem");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "loaded");

  n.host.modules.clear();
  r = n.check("gpudirect.peermem");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "not loaded");
  CHECK(contains(r.detail, "nvidia-peermem"));
}

TEST_CASE("gpudirect.acs.BDF: one check per bridge between a GPU and its NIC, each with ACS redirect off") {
  Node n;
  std::vector<std::string> acs;
  for (const auto& c : n.plan.checks)
    if (c.name.starts_with("gpudirect.acs.")) acs.push_back(c.name.substr(14));
  CHECK(acs == n.plan.acs_disable);
  CHECK(acs == std::vector<std::string>{"0000:11:00.0", "0000:11:01.0", "0000:31:00.0", "0000:31:01.0",
                                        "0000:51:00.0", "0000:51:01.0"});

  auto r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.expected == "ACS P2P redirect off");
  CHECK(r.observed == "0x0000");

  n.host.config["0000:31:01.0"] = config_space(true, 0x001d);
  r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "0x001d");
  CHECK(contains(r.detail, "redirected to the root complex"));

  n.host.config["0000:31:01.0"] = config_space(false);  // a bridge without ACS
  r = n.check("gpudirect.acs.0000:31:01.0");
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "no ACS capability");

  n.host.config.erase("0000:31:01.0");  // config space unreadable (ENODEV)
  r = n.check("gpudirect.acs.0000:31:01.0");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "error");
}

// ---------------------------------------------------------------------------------------------
// The node's result from verify's results

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
    CAPTURE(r.name);
    CHECK_FALSE(r.failing());
  }
  CHECK(node_passes(results));
}
