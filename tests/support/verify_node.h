// A node planned and "applied" for verify tests: the plan make_plan gives for three
// GPU+NIC pairs with every check, the inventory after apply, in-memory kernel fakes and a
// fake RDMA data path set up so that every check passes until a test breaks something.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/fake_clock.h"
#include "support/fake_dcb.h"
#include "support/fake_host.h"
#include "support/fake_rtnl.h"
#include "support/hardware_builder.h"
#include "affinity.h"
#include "gpu/nccl.h"
#include "gpu/nvml.h"
#include "verify/verify.h"

using namespace railyard;
using railyard::test::FakeDcb;
using railyard::test::FakeEthtool;
using railyard::test::FakeRtnl;

namespace railyard::test::verify_node {

using railyard::test::OpenHost;

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

  // GPUDirect: every GPU writes at `gpu_mbps` through `registration`, or fails with
  // `gpu_errors[pci]` (errno, message).
  struct GpuCall {
    std::string dev;
    int gid = -1;
    std::string pci;
    std::size_t bytes = 0;
    int timeout_ms = 0;
  };
  std::vector<GpuCall> gpu_calls;
  double gpu_mbps = kRate * 0.9;
  std::string registration = "dma-buf";
  std::optional<std::string> stand_in;
  std::map<std::string, std::pair<int, std::string>> gpu_errors;

  Outcome<GpuWrite> gpu_write_test(const std::string& dev, int gid, const std::string& gpu_pci, std::size_t bytes,
                                   int timeout_ms) override {
    gpu_calls.push_back({dev, gid, gpu_pci, bytes, timeout_ms});
    if (auto e = gpu_errors.find(gpu_pci); e != gpu_errors.end())
      return Outcome<GpuWrite>::fail(e->second.first, e->second.second);
    return GpuWrite{gpu_mbps, registration, stand_in};
  }

  // Tests run at once (rails.cross_rdma_write): each takes `delay`, and a device that is in
  // two tests at the same time is recorded in `overlapping`.
  std::chrono::milliseconds delay{0};
  std::vector<std::string> overlapping;
  std::size_t most_at_once = 0;

  Outcome<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                             std::size_t bytes, int timeout_ms) override {
    {
      std::lock_guard<std::mutex> hold(lock_);
      calls.push_back({from_dev, from_gid, to_dev, to_gid, bytes, timeout_ms});
      for (const auto& d :
           from_dev == to_dev ? std::vector<std::string>{from_dev} : std::vector<std::string>{from_dev, to_dev})
        if (!busy_.insert(d).second) overlapping.push_back(d);
      most_at_once = std::max(most_at_once, ++at_once_);
    }
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    {
      std::lock_guard<std::mutex> hold(lock_);
      busy_.erase(from_dev);
      busy_.erase(to_dev);
      --at_once_;
    }
    if (auto e = errors.find({from_dev, to_dev}); e != errors.end()) return Outcome<double>::fail(ETIMEDOUT, e->second);
    if (auto r = rates.find({from_dev, to_dev}); r != rates.end()) return Outcome<double>(r->second);
    return Outcome<double>(mbps);
  }

 private:
  std::mutex lock_;
  std::set<std::string> busy_;
  std::size_t at_once_ = 0;
};

// FakeEthtool whose statistics move between reads: `samples[ifname]` answers in turn (the
// last one repeats); interfaces without samples answer FakeEthtool's `statistics`.
class SampledEthtool : public FakeEthtool {
 public:
  std::map<std::string, std::vector<Stats>> samples;
  std::map<std::string, std::size_t> reads;

  Outcome<Stats> stats(const std::string& ifname) override {
    auto it = samples.find(ifname);
    if (it == samples.end() || it->second.empty()) return FakeEthtool::stats(ifname);
    std::size_t n = reads[ifname]++;
    return Outcome<Stats>(it->second[std::min(n, it->second.size() - 1)]);
  }
};

// LLDP neighbours as heard, by interface; an interface not listed heard nothing.
class FakeLldp : public LldpNeighbors {
 public:
  std::map<std::string, LldpHeard> on;
  std::function<void(const std::string&)> on_heard;  // called as each interface is asked for
  LldpHeard heard(const std::string& ifname, std::chrono::steady_clock::time_point) override {
    if (on_heard) on_heard(ifname);
    auto it = on.find(ifname);
    return it == on.end() ? LldpHeard{} : it->second;
  }
  std::chrono::steady_clock::time_point deadline() const override { return {}; }
};

// What a leaf port configured as the plan means advertises to rail `rail` on VLAN `vlan`.
inline LldpNeighbor leaf_neighbor(const RailPlan& rail, int vlan) {
  LldpNeighbor n;
  n.chassis_id_subtype = 4;
  n.chassis_id = "0c:42:a1:00:00:0" + std::to_string(rail.index);
  n.port_id_subtype = 5;
  n.port_id = rail.lldp_port.empty() ? "swp1" : rail.lldp_port;
  n.system_name = rail.lldp_system.empty() ? "leaf-r" + std::to_string(rail.index) : rail.lldp_system;
  n.ttl_s = 120;
  n.pfc = LldpPfc{false, false, 8, static_cast<std::uint8_t>(rail.pfc_enable)};
  n.max_frame_size = 9216;
  n.port_vlan_id = 1;
  n.vlan_names = {{vlan, "rail" + std::to_string(rail.index)}};
  return n;
}

// 4 KiB of PCI config space whose extended capabilities are AER at 0x100, then (when `acs`)
// ACS at 0x148 with control register `ctrl`.
inline std::vector<std::uint8_t> config_space(bool acs, int ctrl = 0) {
  std::vector<std::uint8_t> c(4096, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put32(0x100, (acs ? 0x148u << 20 : 0u) | (2u << 16) | 0x0001u);  // AER, version 2
  if (acs) {
    put32(0x148, (1u << 16) | 0x000du);  // ACS, version 1, last
    c[0x14c] = 0x5f;                     // capability register: every control implemented
    c[0x14e] = static_cast<std::uint8_t>(ctrl & 0xff);
    c[0x14f] = static_cast<std::uint8_t>(ctrl >> 8);
  }
  return c;
}

// Three switches, each with one GPU beside one rail NIC (ens0f0, ens1f0, ens2f0 on
// mlx5_0..2), plus the management port eno1.
inline Inventory three_rails() { return test::managed_server({{1, 1}, {1, 1}, {1, 1}}); }

// The same with each rail NIC a RoCE LAG: bond0..2 of ensSf0 and ensSf0p1 (bond_rails()).
inline Inventory three_bonded_rails() {
  Inventory inv = three_rails();
  test::bond_rails(inv);
  return inv;
}

// A node planned from `inventory` with a recipe every check applies to (VLAN 200, PCIe Gen4
// x16 at least, 200 Gb/s rails, ACS off, one NVMe-oF target on rail 0) and the kernel, the
// post-apply inventory and the data path set up as a successful apply leaves them, so that
// every check passes until a test breaks something.
// What NVML reports for healthy GPUs of `inv`: named, persistence and ECC on, nothing pending,
// idle, cool, at full PCIe width, 18 NVLinks up, on their NUMA node, and NVML's topology of
// every pair what railyard reads from the same PCI tree.
inline NvmlReading healthy_nvml(const Inventory& inv) {
  NvmlReading r;
  r.library_present = true;
  r.library = "libnvidia-ml.so.1";
  r.driver_version = "550.54.15";
  r.xids = std::vector<Xid>{};
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const Gpu& g = inv.gpus[i];
    NvmlGpu n;
    n.pci = g.pci.bdf;
    n.name = std::string("NVIDIA H100 80GB HBM3");
    n.uuid = "GPU-0000000" + std::to_string(i) + "-1111-2222-3333-444444444444";
    n.persistence = true;
    n.ecc = NvmlEcc{true, true, 0};
    n.remap = NvmlRemap{true, 0, 0, false, false};
    n.throttle = std::uint64_t{0x1};  // idle
    n.temperature_c = 38u;
    n.pcie = NvmlPcie{5, 16, 5, 16};
    n.nvlinks = std::vector<bool>(18, true);
    n.numa_node = g.pci.numa_node;
    r.gpus.push_back(std::move(n));
  }
  static constexpr NvmlTopology kLevels[] = {NvmlTopology::single, NvmlTopology::multiple, NvmlTopology::hostbridge,
                                             NvmlTopology::node, NvmlTopology::system};
  for (std::size_t i = 0; i < inv.gpus.size(); ++i)
    for (std::size_t j = i + 1; j < inv.gpus.size(); ++j)
      r.topology.push_back({inv.gpus[i].pci.bdf, inv.gpus[j].pci.bdf,
                            kLevels[static_cast<int>(classify_affinity(inv.gpus[i].pci, inv.gpus[j].pci))]});
  return r;
}

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
  FakeLldp lldp;
  test::FakeClock clock;  // pause samples take no time
  Kernel kernel{rtnl, dcb, ethtool, host};
  NvmlReading nvml;             // healthy GPUs, as NVML would report them (healthy_nvml)
  std::optional<NcclRun> nccl;  // all_reduce_perf's run; none: as verify, which never runs it

  explicit Node(const std::function<void(Recipe&)>& tweak = {}, Inventory inventory = three_rails())
      : before(std::move(inventory)) {
    recipe = test::recipe();
    recipe.hardware.gpu_count = static_cast<int>(before.gpus.size());
    recipe.hardware.gpu_device_ids = {"0x2330", "0x2324"};
    recipe.hardware.rail_speed_mbps = 200000;
    recipe.hardware.pcie_gen = 4;
    recipe.hardware.pcie_width = 16;
    recipe.fabric.vlan = kVlan;
    // One subnet and address per rail: three, or as many as the inventory has rail NICs.
    std::size_t rails = 0;
    for (const auto& nic : before.nics) rails += nic.management ? 0 : 1;
    std::vector<std::string> addresses;
    recipe.addressing.subnets.clear();
    for (std::size_t i = 0; i < std::max<std::size_t>(rails, 3); ++i) {
      recipe.addressing.subnets.push_back("198.18." + std::to_string(i) + ".0/24");
      addresses.push_back("198.18." + std::to_string(i) + ".11");
    }
    recipe.gpudirect.disable_acs = true;
    NvmeofTarget t;
    t.address = "198.18.0.250";
    t.nqn = kNqn;
    t.rail = 0;
    recipe.nvmeof = {t};
    recipe.selftest.pause_sample_ms = 100;  // the schema's minimum
    if (tweak) tweak(recipe);
    plan = make_plan(before, recipe, test::node(addresses));
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
  std::vector<CheckResult> verify_all() {
    return verify(VerifyContext{plan, now, kernel, rdma, clock, &lldp, nullptr, &nvml, nccl ? &*nccl : nullptr});
  }

  // The one planned check `name`, verified alone (the plan's rails and targets unchanged).
  CheckResult check(const std::string& name) {
    Plan one = plan;
    one.checks.clear();
    for (const auto& c : plan.checks)
      if (c.id.name() == name) one.checks.push_back(c);
    REQUIRE_MESSAGE(one.checks.size() == 1, "the plan has no check " << name);
    auto results = verify(VerifyContext{one, now, kernel, rdma, clock, &lldp, nullptr, &nvml, nccl ? &*nccl : nullptr});
    REQUIRE(results.size() == 1);
    return results.front();
  }

 private:
  // What a successful apply leaves: links, VLANs and addresses, PFC and the DSCP app
  // entries, trust, ECN, ToS, the storm timeout, peermem, ACS off, NVMe-oF connected; and
  // after it, links at full PCIe width, rails at speed, RoCE v2 GIDs on the VLAN devices.
  void applied() {
    now = before;
    nvml = healthy_nvml(before);
    for (auto& g : now.gpus) {
      g.pci.max_link_speed = g.pci.current_link_speed;
      g.pci.max_link_width = g.pci.current_link_width;
    }
    for (auto& n : now.nics) {
      if (n.management) continue;
      n.speed_mbps = 200000;
      for (auto& port : n.bond_ports) port.speed_mbps = 200000;
      n.pci.current_link_speed = n.pci.max_link_speed = "32.0 GT/s PCIe";
      n.pci.current_link_width = n.pci.max_link_width = 16;
    }
    rtnl.add_link("eno1", 1500, true);
    rtnl.addrs["eno1"] = {"10.0.0.5/24"};
    rtnl.route_entries.push_back({"default", "eno1", "", 254, ""});
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
      rtnl.route_entries.push_back({r.address->substr(0, 8) + ".0/24", r.netdev, r.address->substr(0, 11), 254, ""});
      host.files["/sys/kernel/config/rdma_cm/" + r.rdma_device + "/ports/1/default_roce_tos"] =
          std::to_string(r.roce_tos);
      LldpHeard& heard = lldp.on[r.bond_ports.empty() ? r.ifname : r.bond_ports.front()];
      heard.neighbor = leaf_neighbor(r, kVlan);
      heard.frames = 3;
      for (const auto& port : port_views(r)) {  // a bond's ports, else the rail's interface
        const std::string& p = port.ifname;
        dcb.pfcs[p] = IeeePfc{8, 0x08, 0, 0};
        dcb.tables[p] = {DcbApp{5, 3, 26}, DcbApp{5, 6, 48}};
        host.files["/sys/class/net/" + p + "/qos/trust"] = "dscp";
        host.files["/sys/class/net/" + p + "/ecn/roce_np/enable/3"] = "1";
        host.files["/sys/class/net/" + p + "/ecn/roce_rp/enable/3"] = "1";
        host.files["/sys/class/net/" + p + "/ecn/roce_np/cnp_dscp"] = "48";
        host.files["/sys/class/net/" + p + "/ecn/roce_np/cnp_802p_prio"] = "6";
        ethtool.tunables[{p, kEthtoolPfcPreventionTout}] = 100;
        ethtool.statistics[p] = {{"rx_prio3_pause", 10}, {"tx_prio3_pause", 20}, {"rx_prio0_pause", 0}};
      }
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
inline std::string listing(const std::vector<CheckResult>& results) {
  std::string out;
  for (const auto& r : results)
    out += r.name() + ": " + to_string(r.status) + " [" + r.expected + " | " + r.observed + "]" +
           (r.detail.empty() ? "" : " (" + r.detail + ")") + (r.required ? "" : " not required") + "\n";
  return out;
}

inline std::string text(const CheckResult& r) { return listing({r}); }

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

// The node's result had verify's results been the whole report.
inline bool node_passes(const std::vector<CheckResult>& results) {
  Report report;
  report.checks = results;
  return report.passed();
}

}  // namespace railyard::test::verify_node

using namespace railyard::test::verify_node;
