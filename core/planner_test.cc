// Inventory + recipe + node identity → plan (planner.cc, plan_render.cc).
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "plan.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

// The note of a plan without a reference on any rail ([fabric.probe] required by default).
const char* const kNoReference =
    "no peer checks: no rail has a reference (an inventory node with reference = true, or [fabric.probe] peers); "
    "the fabric between nodes is not proven before the join\n";

// Two GPUs, each beside one rail NIC (ens0f0, ens1f0).
Inventory two_rails() { return managed_server({{1, 1}, {1, 1}}); }

Plan plan(const Inventory& inv, const Recipe& r, const std::optional<NodeEntry>& n = node()) {
  return make_plan(inv, r, n);
}

NvmeofTarget target(int rail, NvmeTransport transport = NvmeTransport::rdma, bool required = true) {
  NvmeofTarget t;
  t.transport = transport;
  t.address = "198.18." + std::to_string(rail) + ".250";
  t.nqn = "nqn.2024-01.example.storage:data" + std::to_string(rail);
  t.rail = rail;
  t.required = required;
  return t;
}

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

std::string words(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// "path=value" per line.
std::string sysctls(const RailPlan& r) {
  std::string out;
  for (const auto& s : r.sysctls) out += s.path + "=" + s.value + "\n";
  return out;
}

const PlannedCheck* find_check(const Plan& p, const std::string& name) {
  for (const auto& c : p.checks)
    if (c.id.name() == name) return &c;
  return nullptr;
}

// "expected" of a check, "[not required]" appended when it is not; "(absent)" when there is none.
std::string check(const Plan& p, const std::string& name) {
  const PlannedCheck* c = find_check(p, name);
  if (!c) return "(absent)";
  return c->expected + (c->required ? "" : " [not required]");
}

// The names of the checks starting with `prefix`, space separated.
std::string checks(const Plan& p, const std::string& prefix) {
  std::string out;
  for (const auto& c : p.checks)
    if (c.id.name().rfind(prefix, 0) == 0) out += (out.empty() ? "" : " ") + c.id.name();
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// RoCE parameters

TEST_CASE("roce_path_mtu: the kernel's iboe_get_mtu, 96 bytes of headers to spare") {
  CHECK(roce_path_mtu(9000) == 4096);
  CHECK(roce_path_mtu(4200) == 4096);
  CHECK(roce_path_mtu(4192) == 4096);  // 4096 + 96
  CHECK(roce_path_mtu(4191) == 2048);
  CHECK(roce_path_mtu(4180) == 2048);  // the kernel's 2048, not 4096 (an 80-byte rule said 4096)
  CHECK(roce_path_mtu(4176) == 2048);
  CHECK(roce_path_mtu(2144) == 2048);
  CHECK(roce_path_mtu(2143) == 1024);
  CHECK(roce_path_mtu(2128) == 1024);
  CHECK(roce_path_mtu(1500) == 1024);
  CHECK(roce_path_mtu(1120) == 1024);
  CHECK(roce_path_mtu(1119) == 512);
  CHECK(roce_path_mtu(1104) == 512);
  CHECK(roce_path_mtu(608) == 512);
  CHECK(roce_path_mtu(607) == 256);
  CHECK(roce_path_mtu(592) == 256);
  CHECK(roce_path_mtu(100) == 256);  // never below the smallest
}

TEST_CASE("rails carry the recipe's MTU and its RoCE path MTU") {
  Recipe r = recipe();
  r.fabric.mtu = 4200;
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].mtu == 4200);
  CHECK(p.rails[0].roce_path_mtu == 4096);
  r.fabric.mtu = 1500;
  CHECK(plan(two_rails(), r).rails[1].roce_path_mtu == 1024);
}

TEST_CASE("roce_tos: DSCP << 2, with ECT(0) when ECN is in use") {
  FabricSpec f;
  CHECK(roce_tos(f) == 106);  // DSCP 26, ECN best-effort
  f.ecn = Requirement::required;
  CHECK(roce_tos(f) == 106);
  f.ecn = Requirement::off;
  CHECK(roce_tos(f) == 104);
  f.roce_dscp = 46;
  CHECK(roce_tos(f) == 184);
  Recipe r = recipe();
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].roce_tos == 106);
  CHECK(check(p, "rail.0.roce_tos") == "106");
}

TEST_CASE("pfc_enable: the bitmap of the lossless priority; 0 with PFC off") {
  Recipe r = recipe();
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].pfc_enable == 0x08);
  CHECK(to_json(p)["rails"][0]["pfc_enable"] == "0x08");
  r.fabric.pfc_priority = 5;
  CHECK(plan(two_rails(), r).rails[0].pfc_enable == 0x20);
  r.fabric.pfc = Requirement::off;
  p = plan(two_rails(), r);
  CHECK(p.rails[0].pfc_enable == 0);
  CHECK(to_json(p)["rails"][0]["pfc_enable"] == "0x00");
}

TEST_CASE("dscp_to_priority: 64 entries of DSCP >> 3, the RoCE DSCP on the lossless priority") {
  Recipe r = recipe();
  r.fabric.roce_dscp = 46;
  r.fabric.pfc_priority = 3;
  Plan p = plan(two_rails(), r);
  const auto& map = p.rails[0].dscp_to_priority;
  REQUIRE(map.size() == 64);
  for (int d = 0; d < 64; ++d) {
    CAPTURE(d);
    CHECK(map[static_cast<std::size_t>(d)] == (d == 46 ? 3 : d >> 3));
  }
  CHECK(check(p, "rail.0.dscp_map") == "DSCP 46 → priority 3");
}

TEST_CASE("storm prevention timeout follows the recipe") {
  Recipe r = recipe();
  r.fabric.pfc_storm_timeout_ms = 500;
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].storm_timeout_ms == 500);
  CHECK(check(p, "rail.0.storm_prevention") == "500 ms");
}

// ---------------------------------------------------------------------------------------------
// netdevs and addresses

TEST_CASE("untagged rails: the netdev is the interface") {
  Plan p = plan(two_rails(), recipe());
  CHECK(p.rails[0].netdev == "ens0f0");
  CHECK(!p.rails[0].vlan);
  CHECK(check(p, "rail.0.vlan") == "(absent)");
}

TEST_CASE("VLAN rails: netdev ifname.VLAN, railN.VLAN when that exceeds 15 characters") {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  Inventory inv = two_rails();
  Plan p = plan(inv, r);
  CHECK(p.rails[0].netdev == "ens0f0.200");
  CHECK(p.rails[0].vlan == 200);
  CHECK(check(p, "rail.0.vlan") == "ens0f0.200 id 200");
  CHECK(sysctls(p.rails[0]) == "net/ipv4/conf/ens0f0.200/arp_ignore=1\nnet/ipv4/conf/ens0f0.200/arp_announce=2\n");

  inv.nics[1].ifname = "enp19s0f0np";   // 11 + 4 = 15: fits
  inv.nics[2].ifname = "enp51s0f0np0";  // 12 + 4 = 16: too long
  p = plan(inv, r);
  CHECK(p.rails[0].netdev == "enp19s0f0np.200");
  CHECK(p.rails[1].netdev == "rail1.200");
  CHECK(p.rails[1].ifname == "enp51s0f0np0");
}

TEST_CASE("addresses: the node identity's, with the rail subnet's prefix when written bare") {
  Plan p = plan(two_rails(), recipe(), node({"198.18.0.11", "198.18.1.11/25"}));
  CHECK(p.rails[0].address == "198.18.0.11/24");
  CHECK(p.rails[1].address == "198.18.1.11/25");  // written with a prefix: kept
  CHECK(check(p, "rail.0.address") == "198.18.0.11/24 on ens0f0");
  CHECK(p.node == "gpu-a01");
  CHECK(lines(p.notes) == kNoReference);

  Recipe shared = recipe();
  shared.addressing.mode = AddressingMode::shared_subnet;
  shared.addressing.subnets.clear();
  shared.addressing.subnet = "198.18.0.0/16";
  p = plan(two_rails(), shared, node({"198.18.0.11", "198.18.1.11"}));
  CHECK(p.rails[0].address == "198.18.0.11/16");
  CHECK(p.rails[1].address == "198.18.1.11/16");
}

TEST_CASE("a node identity with fewer rail addresses: a note, the rail without address") {
  Plan p = plan(two_rails(), recipe(), node({"198.18.0.11"}));
  CHECK(p.ok());
  CHECK(p.rails[0].address == "198.18.0.11/24");
  CHECK(!p.rails[1].address);
  CHECK(lines(p.notes) == std::string("node identity has no address for rail 1\n") + kNoReference);
  CHECK(check(p, "rail.1.address") == "(absent)");
}

TEST_CASE("no node identity: a note, no addresses, no host name") {
  Plan p = plan(two_rails(), recipe(), std::nullopt);
  CHECK(p.ok());
  CHECK(lines(p.notes) == std::string("no node identity: rail addresses are left out of the plan\n") + kNoReference);
  CHECK(p.node == "");
  CHECK(!p.rails[0].address);
  CHECK(!p.rails[1].address);
  CHECK(to_json(p)["node"].is_null());
}

TEST_CASE("no management interface: a note, NCCL_SOCKET_IFNAME left out") {
  Inventory inv = two_rails();
  inv.nics[0].management = false;
  Plan p = plan(inv, recipe());
  CHECK(p.management == "");
  CHECK(lines(p.notes) ==
        std::string("no management interface matched: NCCL_SOCKET_IFNAME is left out\n") + kNoReference);
  CHECK(plan(two_rails(), recipe()).management == "eno1");
}

TEST_CASE("shared subnet: a routing table per rail and loose rp_filter") {
  Recipe r = recipe();
  r.addressing.mode = AddressingMode::shared_subnet;
  r.addressing.subnets.clear();
  r.addressing.subnet = "198.18.0.0/16";
  r.addressing.table_base = 200;
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].table == 200);
  CHECK(p.rails[1].table == 201);
  CHECK(sysctls(p.rails[1]) ==
        "net/ipv4/conf/ens1f0/arp_ignore=1\n"
        "net/ipv4/conf/ens1f0/arp_announce=2\n"
        "net/ipv4/conf/ens1f0/rp_filter=2\n");
}

TEST_CASE("per-rail subnets: no table, only the ARP sysctls") {
  Plan p = plan(two_rails(), recipe());
  CHECK(!p.rails[0].table);
  CHECK(sysctls(p.rails[0]) == "net/ipv4/conf/ens0f0/arp_ignore=1\nnet/ipv4/conf/ens0f0/arp_announce=2\n");
}

// ---------------------------------------------------------------------------------------------
// modules and GPUDirect

TEST_CASE("modules: the RDMA stack, and nvidia_peermem with NVIDIA GPUs") {
  CHECK(words(plan(two_rails(), recipe()).modules) == "ib_uverbs rdma_cm rdma_ucm nvidia_peermem");
}

TEST_CASE("modules: 8021q only with a VLAN") {
  Recipe r = recipe();
  r.fabric.vlan = 300;
  CHECK(words(plan(two_rails(), r).modules) == "8021q ib_uverbs rdma_cm rdma_ucm nvidia_peermem");
}

TEST_CASE("modules: Soft-RoCE loads crc32_generic before rdma_rxe") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  CHECK(words(plan(managed_server({{0, 2, 0, false}}), r).modules) ==
        "crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm");
}

TEST_CASE("modules: NVMe-oF by transport, each once") {
  Recipe r = recipe();
  r.nvmeof = {target(0), target(1), target(0, NvmeTransport::tcp), target(1, NvmeTransport::tcp)};
  CHECK(words(plan(two_rails(), r).modules) == "ib_uverbs rdma_cm rdma_ucm nvme_rdma nvme_tcp nvidia_peermem");
  r.nvmeof = {target(1, NvmeTransport::tcp)};
  CHECK(words(plan(two_rails(), r).modules) == "ib_uverbs rdma_cm rdma_ucm nvme_tcp nvidia_peermem");
}

TEST_CASE("modules: everything at once, no duplicates") {
  Recipe r = recipe();
  r.fabric.vlan = 300;
  r.fabric.soft_roce = true;
  r.nvmeof = {target(0), target(1)};
  CHECK(words(plan(two_rails(), r).modules) ==
        "8021q crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm nvme_rdma nvidia_peermem");
}

// What first boot loads while it waits for its devices: the plan's modules but those that
// depend on the hardware found.
TEST_CASE("modules: recipe_modules() is the plan's, less nvidia_peermem") {
  Recipe r = recipe();
  r.fabric.vlan = 300;
  r.fabric.soft_roce = true;
  r.nvmeof = {target(0), target(1, NvmeTransport::tcp)};
  CHECK(words(recipe_modules(r)) == "8021q crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm nvme_rdma nvme_tcp");
  CHECK(words(plan(two_rails(), r).modules) == words(recipe_modules(r)) + " nvidia_peermem");
}

// What the image loads at early boot: the same, one per line after comment lines, as
// modules-load.d(5) reads them.
TEST_CASE("modules: the image's modules-load.d file lists recipe_modules()") {
  Recipe r = recipe();
  r.name = "gpu-sku";
  r.fabric.vlan = 300;
  r.nvmeof = {target(0)};
  const std::string conf = modules_load_conf(r);
  CHECK(conf.starts_with("# railyard build, recipe gpu-sku: "));
  std::vector<std::string> listed;
  std::size_t at = 0;
  while (at < conf.size()) {
    std::size_t end = conf.find('\n', at);
    REQUIRE(end != std::string::npos);  // every line ends
    std::string line = conf.substr(at, end - at);
    if (!line.starts_with("#")) listed.push_back(line);
    at = end + 1;
  }
  CHECK(listed == recipe_modules(r));
  CHECK(std::string(kModulesLoadPath) == "/etc/modules-load.d/railyard.conf");
}

// The lab storage target's: its rails' and nvmet's, never the initiator's.
TEST_CASE("modules: target_modules() serves, never connects") {
  Recipe r = recipe();
  r.fabric.vlan = 100;
  r.fabric.soft_roce = true;
  r.nvmeof = {target(0), target(0, NvmeTransport::tcp)};
  CHECK(words(target_modules(r)) ==
        "8021q crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm null_blk nvmet "
        "nvmet_rdma nvmet_tcp");
}

TEST_CASE("nvidia_peermem only with NVIDIA GPUs and gpudirect.peermem") {
  Plan p = plan(two_rails(), recipe());
  CHECK(p.peermem);
  CHECK(check(p, "gpudirect.peermem") == "nvidia_peermem loaded");

  Recipe amd = recipe();
  amd.hardware.gpu_vendor = GpuVendor::amd;
  p = plan(two_rails(), amd);
  CHECK(!p.peermem);
  CHECK(words(p.modules) == "ib_uverbs rdma_cm rdma_ucm");
  CHECK(check(p, "gpudirect.peermem") == "(absent)");

  Recipe off = recipe();
  off.gpudirect.peermem = false;
  p = plan(two_rails(), off);
  CHECK(!p.peermem);
  CHECK(words(p.modules) == "ib_uverbs rdma_cm rdma_ucm");

  p = plan(managed_server({{0, 1}, {0, 1}}), recipe());  // no GPUs
  CHECK(!p.peermem);
  CHECK(words(p.modules) == "ib_uverbs rdma_cm rdma_ucm");
}

TEST_CASE("ACS: off on the switch ports between each GPU and its NIC, only with gpudirect.disable_acs") {
  Plan p = plan(two_rails(), recipe());
  CHECK(p.acs_disable.empty());
  CHECK(checks(p, "gpudirect.acs.") == "");

  Recipe r = recipe();
  r.gpudirect.disable_acs = true;
  p = plan(two_rails(), r);
  CHECK(words(p.acs_disable) == "0000:11:00.0 0000:11:01.0 0000:31:00.0 0000:31:01.0");
  CHECK(checks(p, "gpudirect.acs.") ==
        "gpudirect.acs.0000:11:00.0 gpudirect.acs.0000:11:01.0 gpudirect.acs.0000:31:00.0 gpudirect.acs.0000:31:01.0");
  CHECK(check(p, "gpudirect.acs.0000:11:00.0") == "ACS P2P redirect off");
  CHECK(to_json(p)["gpudirect"].dump() ==
        R"({"peermem":true,"acs_disable":["0000:11:00.0","0000:11:01.0","0000:31:00.0","0000:31:01.0"]})");
}

TEST_CASE("ACS: ports shared by several GPUs listed once; GPUs pinned across roots add none") {
  // Switch 0: two GPUs and the NIC; switch 1: one GPU, no NIC (PHB to the NIC).
  Recipe r = recipe();
  r.gpudirect.disable_acs = true;
  Plan p = plan(managed_server({{2, 1}, {1, 0}}), r);
  REQUIRE(p.rails.size() == 1);
  CHECK(p.rails[0].gpu_pcis.size() == 3);
  CHECK(words(p.acs_disable) == "0000:11:00.0 0000:11:01.0 0000:11:02.0");
}

// ---------------------------------------------------------------------------------------------
// NVMe-oF

TEST_CASE("nvmeof: connected through the rail's netdev, from the rail's address") {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  r.nvmeof = {target(1), target(0, NvmeTransport::tcp, false)};
  Plan p = plan(two_rails(), r);
  CHECK(p.ok());
  REQUIRE(p.nvmeof.size() == 2);
  CHECK(p.nvmeof[0].host_iface == "ens1f0.200");
  CHECK(p.nvmeof[0].host_traddr == "198.18.1.11");
  CHECK(p.nvmeof[0].rail == 1);
  CHECK(p.nvmeof[0].address == "198.18.1.250");
  CHECK(p.nvmeof[0].port == 4420);
  CHECK(p.nvmeof[1].host_iface == "ens0f0.200");
  CHECK(p.nvmeof[1].host_traddr == "198.18.0.11");
  CHECK(to_json(p)["nvmeof"][1].dump() ==
        R"({"transport":"tcp","address":"198.18.0.250","port":4420,"nqn":"nqn.2024-01.example.storage:data0",)"
        R"("rail":0,"host_iface":"ens0f0.200","host_traddr":"198.18.0.11","required":false})");

  p = plan(two_rails(), r, std::nullopt);  // no address known: the kernel picks the source
  CHECK(p.nvmeof[0].host_traddr == "");
  CHECK(p.nvmeof[0].host_iface == "ens1f0.200");
}

TEST_CASE("nvmeof: a target on a rail the node lacks is a problem") {
  Recipe r = recipe();
  r.nvmeof = {target(0), target(2)};
  Plan p = plan(two_rails(), r);
  CHECK(!p.ok());
  CHECK(lines(p.problems) == "nvmeof target nqn.2024-01.example.storage:data2 is on rail 2; the node has 2 rails\n");
  CHECK(p.nvmeof.empty());
}

TEST_CASE("nvmeof: a problem with a target plans nothing, like every other problem") {
  // A target on a missing rail is a problem found before anything is planned.
  Recipe r = recipe();
  r.nvmeof = {target(2)};
  Plan p = plan(two_rails(), r);
  CHECK(!p.ok());
  CHECK(p.rails.empty());
  CHECK(p.files.empty());
  CHECK(p.checks.empty());
}

// ---------------------------------------------------------------------------------------------
// Soft-RoCE

TEST_CASE("Soft-RoCE: rails without an RDMA device get rxeN, created on apply") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  r.fabric.pfc = Requirement::best_effort;
  Inventory inv = managed_server({{0, 1}, {0, 2, 0, false}});  // mlx5_0 on ens0f0; ens1f0, ens1f1 bare
  Plan p = plan(inv, r, std::nullopt);
  REQUIRE(p.rails.size() == 3);
  CHECK(p.rails[0].rdma_device == "mlx5_0");
  CHECK(p.rails[0].soft_roce_device == "");
  CHECK(p.rails[1].rdma_device == "rxe1");
  CHECK(p.rails[1].soft_roce_device == "rxe1");
  CHECK(p.rails[2].soft_roce_device == "rxe2");
  CHECK(to_json(p)["rails"][1]["soft_roce"] == true);
  CHECK(to_json(p)["rails"][0]["soft_roce"] == false);
  CHECK(!p.rails[1].roce_v2_gid_index);
}

TEST_CASE("settled plan: GID indices that apply made known reach nccl.conf, so every run writes the same") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  r.fabric.pfc = Requirement::best_effort;
  r.fabric.vlan = 100;
  Inventory before = managed_server({{0, 2, 0, false}});  // ens0f0, ens0f1: no RDMA devices yet
  Plan first = plan(before, r, std::nullopt);
  REQUIRE(first.ok());
  auto conf = [](const Plan& p) {
    for (const auto& f : p.files)
      if (f.path == "/etc/nccl.conf") return f.content;
    return std::string("(none)");
  };
  CHECK(conf(first).find("NCCL_IB_ADDR_FAMILY=AF_INET\n") != std::string::npos);  // nothing to index yet

  // After apply: rxe0/rxe1 exist, each with its VLAN address's RoCE v2 GID at index 2.
  Inventory now = before;
  for (auto& n : now.nics)
    if (!n.management) {
      std::string dev = n.ifname == "ens0f0" ? "rxe0" : "rxe1";
      n.rdma_device = dev;
      RdmaDevice d;
      d.name = dev;
      d.netdev = n.ifname;
      RdmaPort port;
      port.state = "ACTIVE";
      port.gids = {gid(0, n.ifname, "IB/RoCE v1"), gid(1, n.ifname), gid(2, n.ifname + ".100")};
      d.ports.push_back(port);
      now.rdma.push_back(d);
    }
  Plan settled = settled_plan(first, now, r);
  CHECK(settled.rails[0].roce_v2_gid_index == 2);
  CHECK(conf(settled).find("NCCL_IB_GID_INDEX=2\n") != std::string::npos);
  CHECK(settled.checks.size() == first.checks.size());  // only the GIDs and the files differ
  // A second run plans on the node as it is now: the files it writes are the first run's.
  Plan second = plan(now, r, std::nullopt);
  CHECK(settled_plan(second, now, r).files.size() == settled.files.size());
  CHECK(conf(settled_plan(second, now, r)) == conf(settled));
  CHECK(conf(second) == conf(settled));
}

TEST_CASE("Soft-RoCE: its rails accept their own host's addresses, for writes between rails") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  r.fabric.pfc = Requirement::best_effort;
  r.fabric.vlan = 100;
  Inventory inv = managed_server({{0, 1}, {0, 1, 0, false}});  // mlx5_0 on ens0f0; ens1f0 bare
  Plan p = plan(inv, r, std::nullopt);
  REQUIRE(p.rails.size() == 2);
  CHECK(sysctls(p.rails[0]) == "net/ipv4/conf/ens0f0.100/arp_ignore=1\nnet/ipv4/conf/ens0f0.100/arp_announce=2\n");
  CHECK(sysctls(p.rails[1]) ==
        "net/ipv4/conf/ens1f0.100/arp_ignore=1\n"
        "net/ipv4/conf/ens1f0.100/arp_announce=2\n"
        "net/ipv4/conf/ens1f0.100/accept_local=1\n");

  // A second boot finds the rxe device made by the first: still Soft-RoCE, the same plan.
  RdmaDevice rxe;
  rxe.name = "rxe1";
  rxe.netdev = "ens1f0";
  rxe.ports.push_back(RdmaPort{});
  inv.rdma.push_back(rxe);
  for (auto& n : inv.nics)
    if (n.ifname == "ens1f0") n.rdma_device = "rxe1";
  Plan again = plan(inv, r, std::nullopt);
  CHECK(again.rails[1].soft_roce_device == "");
  CHECK(sysctls(again.rails[1]) == sysctls(p.rails[1]));
}

// ---------------------------------------------------------------------------------------------
// problems

TEST_CASE("problems: no rails, no files, nothing to apply") {
  Recipe r = recipe();
  r.hardware.rail_count = 8;
  Plan p = plan(two_rails(), r);
  CHECK(!p.ok());
  CHECK(lines(p.problems) == "the recipe wants 8 rails; 2 RDMA NIC(s) found\n");
  CHECK(p.rails.empty());
  CHECK(p.files.empty());
  CHECK(p.checks.empty());
  CHECK(p.modules.empty());
  CHECK(to_text(p) ==
        "plan for gpu-a01 (recipe test)\n"
        "  PROBLEM: the recipe wants 8 rails; 2 RDMA NIC(s) found\n");
  CHECK(to_json(p)["ok"] == false);
}

TEST_CASE("affinity warnings reach the plan, which is still ok") {
  Plan p = plan(managed_server({{1, 0, 0}, {0, 1, 1}}), recipe());
  CHECK(p.ok());
  CHECK(lines(p.warnings) == "rail 0 (ens1f0): GPU↔NIC affinity SYS is worse than the recipe allows (PXB)\n");
  CHECK(check(p, "rail.0.affinity") == "at worst PXB");
}

TEST_CASE("non-rail RDMA NICs are named in the plan") {
  Plan p = plan(managed_server({{1, 2}}), recipe());
  CHECK(words(p.non_rail_nics) == "ens0f1");
}

// ---------------------------------------------------------------------------------------------
// checks

TEST_CASE("checks: PFC required → required checks") {
  Plan p = plan(two_rails(), recipe());
  CHECK(check(p, "rail.0.pfc") == "priority 3 lossless");
  CHECK(check(p, "rail.0.trust") == "dscp");
  CHECK(check(p, "rail.0.dscp_map") == "DSCP 26 → priority 3");
  CHECK(check(p, "rail.0.storm_prevention") == "100 ms");
  CHECK(check(p, "rail.0.pause_storm") == "< 1000 pause frames/s");
  CHECK(check(p, "rail.0.ecn") == "enabled on priority 3 (best-effort) [not required]");  // ECN default
}

TEST_CASE("checks: best-effort → the same checks, not required") {
  Recipe r = recipe();
  r.fabric.pfc = Requirement::best_effort;
  r.fabric.ecn = Requirement::required;
  r.fabric.trust = Trust::pcp;
  Plan p = plan(two_rails(), r);
  CHECK(check(p, "rail.1.pfc") == "priority 3 lossless (best-effort) [not required]");
  CHECK(check(p, "rail.1.trust") == "pcp [not required]");
  CHECK(check(p, "rail.1.dscp_map") == "DSCP 26 → priority 3 [not required]");
  CHECK(check(p, "rail.1.storm_prevention") == "100 ms [not required]");
  CHECK(check(p, "rail.1.pause_storm") == "< 1000 pause frames/s [not required]");
  CHECK(check(p, "rail.1.ecn") == "enabled on priority 3");
}

TEST_CASE("checks: off → no PFC or ECN checks at all") {
  Recipe r = recipe();
  r.fabric.pfc = Requirement::off;
  r.fabric.ecn = Requirement::off;
  Plan p = plan(two_rails(), r);
  CHECK(checks(p, "rail.0.") ==
        "rail.0.affinity rail.0.gpu_topology rail.0.link rail.0.mtu rail.0.address rail.0.no_default_route "
        "rail.0.roce_tos "
        "rail.0.rdma_port rail.0.roce_v2_gid rail.0.rdma_write rail.0.gpudirect_write rail.0.lldp rail.0.lldp_mtu");
}

TEST_CASE("checks: the full list of a rail with everything on") {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  r.hardware.rail_speed_mbps = 100000;
  r.hardware.pcie_gen = 4;
  Plan p = plan(two_rails(), r);
  CHECK(checks(p, "rail.1.") ==
        "rail.1.affinity rail.1.gpu_topology rail.1.pcie_link rail.1.link rail.1.speed rail.1.mtu rail.1.vlan "
        "rail.1.address "
        "rail.1.no_default_route rail.1.pfc rail.1.trust rail.1.dscp_map rail.1.ecn rail.1.roce_tos "
        "rail.1.storm_prevention rail.1.rdma_port rail.1.roce_v2_gid rail.1.rdma_write rail.1.gpudirect_write "
        "rail.1.pause_storm "
        "rail.1.lldp rail.1.lldp_pfc rail.1.lldp_mtu rail.1.lldp_vlan");
  CHECK(check(p, "rail.1.speed") == ">= 100000 Mb/s");
  CHECK(check(p, "rail.1.no_default_route") == "no default route via ens1f0.200");
  CHECK(check(p, "rail.1.roce_v2_gid") == "RoCE v2 IPv4 GID on ens1f0.200");
  CHECK(check(p, "rail.1.rdma_write") == "1048576 bytes written and verified");
  CHECK(check(p, "rail.1.mtu") == "9000");
}

TEST_CASE("checks: gpu.N.pcie_link only when hardware.pcie_gen or pcie_width is set") {
  Recipe r = recipe();
  r.selftest.gpu_health = Requirement::off;  // NVML's checks: tests below
  Plan p = plan(two_rails(), r);
  CHECK(checks(p, "gpu.") == "gpu.count");
  CHECK(check(p, "rail.0.pcie_link") == "(absent)");

  r.hardware.pcie_gen = 5;
  r.hardware.pcie_width = 16;
  p = plan(two_rails(), r);
  CHECK(checks(p, "gpu.") == "gpu.count gpu.0.pcie_link gpu.1.pcie_link");
  CHECK(check(p, "gpu.1.pcie_link") == ">= Gen5 x16");
  CHECK(check(p, "rail.0.pcie_link") == ">= Gen5 x16");

  r.hardware.pcie_gen = 0;
  CHECK(check(plan(two_rails(), r), "gpu.0.pcie_link") == ">= x16");
  r.hardware.pcie_gen = 4;
  r.hardware.pcie_width = 0;
  CHECK(check(plan(two_rails(), r), "gpu.0.pcie_link") == ">= Gen4");
}

TEST_CASE("checks: NVML's per GPU after the sysfs ones, the rail's GPU topology beside its affinity") {
  Recipe r = recipe();
  Plan p = plan(two_rails(), r);
  CHECK(checks(p, "gpu.1.") ==
        "gpu.1.nvml gpu.1.persistence gpu.1.ecc gpu.1.row_remap gpu.1.xid gpu.1.throttle gpu.1.temperature "
        "gpu.1.nvml_pcie gpu.1.nvlink");
  CHECK(check(p, "gpu.1.xid") ==
        "no XID 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120 in the kernel log since boot");
  CHECK(check(p, "gpu.1.persistence") == "persistence mode on [not required]");
  CHECK(check(p, "gpu.1.nvlink") == "every NVLink active");
  CHECK(check(p, "rail.1.gpu_topology").find("agrees with the pairing [not required]") != std::string::npos);
  r.hardware.nvlinks_per_gpu = 18;
  r.selftest.gpu_max_temp_c = 80;
  p = plan(two_rails(), r);
  CHECK(check(p, "gpu.0.nvlink") == ">= 18 NVLinks active");
  CHECK(check(p, "gpu.0.temperature") == "<= 80 °C");
  r.hardware.gpu_vendor = GpuVendor::amd;
  CHECK(checks(plan(two_rails(), r), "gpu.0.") == "");
}

TEST_CASE("checks: GPUDirect from GPU memory per rail with a GPU; NCCL when asked, on two GPUs or more") {
  Recipe r = recipe();
  Plan p = plan(two_rails(), r);
  REQUIRE(p.rails[0].gpu_pcis.size() == 1);
  CHECK(check(p, "rail.0.gpudirect_write") ==
        "1048576 bytes from GPU memory to GPU memory of " + p.rails[0].gpu_pcis[0] + ", verified");
  CHECK(check(p, "nccl.all_reduce") == "(absent)");
  r.selftest.nccl_allreduce_min_gbps = 300;
  r.selftest.gpudirect = Requirement::best_effort;
  p = plan(two_rails(), r);
  CHECK(check(p, "nccl.all_reduce") == "all_reduce_perf across 2 GPUs: bus bandwidth >= 300 GB/s");
  CHECK(check(p, "rail.1.gpudirect_write").find("(best-effort)") != std::string::npos);
  r.selftest.gpudirect = Requirement::off;
  CHECK(check(plan(two_rails(), r), "rail.1.gpudirect_write") == "(absent)");
}

TEST_CASE("checks: GPU count and models from the recipe") {
  Recipe r = recipe();
  r.hardware.gpu_count = 2;
  r.hardware.gpu_device_ids = {"0x2330", "0x2324"};
  Plan p = plan(two_rails(), r);
  CHECK(check(p, "gpu.count") == "2");
  CHECK(check(p, "gpu.model") == "device 0x2330 or 0x2324");
  CHECK(check(p, "rails.count") == "2");
}

TEST_CASE("checks: rails.cross_rdma_write only with two rails or more, and never on routed rails") {
  CHECK(check(plan(two_rails(), recipe()), "rails.cross_rdma_write") == "RDMA WRITE between every pair of rails");
  Plan one = plan(managed_server({{1, 1}}), recipe());
  CHECK(one.rails.size() == 1);
  CHECK(check(one, "rails.cross_rdma_write") == "(absent)");
  // Routed rails: the other rail's address resolves to that NIC's MAC, which a leaf does not
  // forward; the write would never cross the fabric.
  Recipe routed = recipe();
  routed.routing.mode = RoutingMode::bgp_unnumbered;
  CHECK(check(plan(two_rails(), routed), "rails.cross_rdma_write") == "(absent)");
}

TEST_CASE("checks: two per NVMe-oF target, required as the target says") {
  Recipe r = recipe();
  r.nvmeof = {target(0), target(1, NvmeTransport::tcp, false)};
  Plan p = plan(two_rails(), r);
  CHECK(checks(p, "nvmeof.") ==
        "nvmeof.0.connected nvmeof.0.namespace_read nvmeof.1.connected nvmeof.1.namespace_read");
  CHECK(check(p, "nvmeof.0.connected") == "nqn.2024-01.example.storage:data0 live over rdma");
  CHECK(check(p, "nvmeof.0.namespace_read") == "first namespace readable");
  CHECK(check(p, "nvmeof.1.connected") == "nqn.2024-01.example.storage:data1 live over tcp [not required]");
  CHECK(check(p, "nvmeof.1.namespace_read") == "first namespace readable [not required]");
  CHECK(checks(plan(two_rails(), recipe()), "nvmeof.") == "");
}

TEST_CASE("rails without GPUs have no affinity check") {
  Plan p = plan(managed_server({{0, 1}, {0, 1}}), recipe());
  CHECK(!p.rails[0].affinity);
  CHECK(check(p, "rail.0.affinity") == "(absent)");
}

// ---------------------------------------------------------------------------------------------
// peer checks ([fabric.probe])

namespace {

// node() whose rails write to 198.18.0.200 and 198.18.1.200.
NodeEntry probing_node(std::vector<std::string> peers = {"198.18.0.200", "198.18.1.200"}) {
  NodeEntry n = node();
  n.probe_peers = std::move(peers);
  return n;
}

}  // namespace

TEST_CASE("peer checks: write, bandwidth and latency on each rail, to the rail's reference") {
  Plan p = plan(two_rails(), recipe(), probing_node());
  CHECK(p.rails[0].probe_peer == "198.18.0.200");
  CHECK(p.rails[1].probe_peer == "198.18.1.200");
  CHECK(checks(p, "rail.0.peer") == "rail.0.peer_write rail.0.peer_bandwidth rail.0.peer_latency");
  CHECK(check(p, "rail.0.peer_write") ==
        "16777216 bytes to 198.18.0.200 across the leaf, verified, no retransmission or drop on priority 3");
  CHECK(check(p, "rail.1.peer_write") ==
        "16777216 bytes to 198.18.1.200 across the leaf, verified, no retransmission or drop on priority 3");
  CHECK(check(p, "rail.1.peer_bandwidth") == ">= 80% of the link's speed");
  CHECK(check(p, "rail.1.peer_latency") == "<= 50 µs");
  CHECK(lines(p.notes) == "");
}

TEST_CASE("peer checks: the recipe's bounds as written, best-effort not required") {
  Recipe r = recipe();
  r.probe.required = Requirement::best_effort;
  r.probe.bytes = 65536;
  r.probe.min_gbps = 0.02;
  r.probe.max_latency_us = 12.5;
  r.fabric.pfc = Requirement::off;
  Plan p = plan(two_rails(), r, probing_node());
  CHECK(check(p, "rail.0.peer_write") ==
        "65536 bytes to 198.18.0.200 across the leaf, verified, no retransmission (best-effort) [not required]");
  CHECK(check(p, "rail.0.peer_bandwidth") == ">= 0.02 Gb/s (best-effort) [not required]");
  CHECK(check(p, "rail.0.peer_latency") == "<= 12.5 µs (best-effort) [not required]");
  r.probe.min_gbps = 25;
  CHECK(check(plan(two_rails(), r, probing_node()), "rail.0.peer_bandwidth") ==
        ">= 25 Gb/s (best-effort) [not required]");
}

TEST_CASE("peer checks: none without a reference, and a note says so") {
  Plan p = plan(two_rails(), recipe());
  CHECK(checks(p, "rail.0.peer") == "");
  CHECK(checks(p, "rail.1.peer") == "");
  CHECK(p.rails[0].probe_peer == "");
  CHECK(lines(p.notes) == kNoReference);
}

TEST_CASE("peer checks: a rail without a reference is named in a note") {
  Plan p = plan(two_rails(), recipe(), probing_node({"198.18.0.200", ""}));
  CHECK(checks(p, "rail.0.peer") == "rail.0.peer_write rail.0.peer_bandwidth rail.0.peer_latency");
  CHECK(checks(p, "rail.1.peer") == "");
  CHECK(lines(p.notes) ==
        "no peer check on rail 1: no reference there (an inventory node with reference = true, or [fabric.probe] "
        "peers)\n");
}

TEST_CASE("peer checks: required = off plans none, and no note") {
  Recipe r = recipe();
  r.probe.required = Requirement::off;
  Plan p = plan(two_rails(), r, probing_node());
  CHECK(checks(p, "rail.0.peer") == "");
  CHECK(checks(p, "rail.1.peer") == "");
  CHECK(lines(p.notes) == "");
  CHECK(lines(plan(two_rails(), r).notes) == "");
}

TEST_CASE("peer checks: the recipe's peers when the node has none there") {
  Recipe r = recipe();
  r.probe.peers = {"198.18.0.250", "198.18.1.250"};
  Plan p = plan(two_rails(), r);
  CHECK(p.rails[0].probe_peer == "198.18.0.250");
  CHECK(check(p, "rail.1.peer_write").find(" to 198.18.1.250 ") != std::string::npos);
  // The node's own come first, rail by rail.
  p = plan(two_rails(), r, probing_node({"198.18.0.200", ""}));
  CHECK(p.rails[0].probe_peer == "198.18.0.200");
  CHECK(p.rails[1].probe_peer == "198.18.1.250");
}

TEST_CASE("peer checks: a rail never probes its own address") {
  Recipe r = recipe();
  r.probe.peers = {"198.18.0.11", "198.18.1.250"};  // the reference itself, booting this recipe
  Plan p = plan(two_rails(), r, node({"198.18.0.11/24", "198.18.1.11"}));
  CHECK(p.rails[0].probe_peer == "");
  CHECK(checks(p, "rail.0.peer") == "");
  CHECK(p.rails[1].probe_peer == "198.18.1.250");
}

TEST_CASE("peer checks: Soft-RoCE measures without a bound") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  r.fabric.pfc = Requirement::best_effort;
  Plan p = plan(managed_server({{0, 1, 0, false}}), r, probing_node({"198.18.0.200"}));
  REQUIRE(p.rails.size() == 1);
  CHECK(check(p, "rail.0.peer_bandwidth") == "measured (no bound on Soft-RoCE)");
  CHECK(check(p, "rail.0.peer_latency") == "measured (no bound on Soft-RoCE)");
}

// A second boot finds the rxe device the first made (soft_roce_device "", the device without a
// PCI function): still Soft-RoCE, as the rail's sysctls know (planner.cc), but peer_checks()
// looks at soft_roce_device only and bounds the bandwidth by a link speed rxe does not have.
TEST_CASE("peer checks: Soft-RoCE measures without a bound on the second boot too") {
  Recipe r = recipe();
  r.fabric.soft_roce = true;
  r.fabric.pfc = Requirement::best_effort;
  Inventory inv = managed_server({{0, 1, 0, false}});
  RdmaDevice rxe;
  rxe.name = "rxe0";
  rxe.netdev = "ens0f0";
  rxe.ports.push_back(RdmaPort{});
  inv.rdma.push_back(rxe);
  for (auto& n : inv.nics)
    if (n.ifname == "ens0f0") n.rdma_device = "rxe0";
  Plan p = plan(inv, r, probing_node({"198.18.0.200"}));
  REQUIRE(p.rails.size() == 1);
  CHECK(p.rails[0].soft_roce_device == "");
  CHECK(check(p, "rail.0.peer_bandwidth") == "measured (no bound on Soft-RoCE)");
  CHECK(check(p, "rail.0.peer_latency") == "measured (no bound on Soft-RoCE)");
}

TEST_CASE("peer checks: a routed rail's reference is among its route probes") {
  Recipe r = recipe();
  r.addressing.subnets.clear();
  r.routing.mode = RoutingMode::bgp_unnumbered;
  r.routing.fabric_prefixes = {"198.18.0.0/16"};
  r.routing.node_asn = 4200000000;
  Plan p = plan(two_rails(), r, probing_node());
  REQUIRE(p.ok());
  CHECK(p.rails[0].route_probes == std::vector<std::string>{"198.18.0.1", "198.18.0.200"});
  CHECK(p.rails[1].route_probes == std::vector<std::string>{"198.18.0.1", "198.18.1.200"});
  CHECK(check(p, "rail.1.route") == "from 198.18.1.11 to 198.18.0.1, 198.18.1.200 via ens1f0 only");
  CHECK(checks(p, "rail.1.peer") == "rail.1.peer_write rail.1.peer_bandwidth rail.1.peer_latency");
}

TEST_CASE("peer checks: the plan carries [fabric.probe] and each rail's reference") {
  Recipe r = recipe();
  r.probe.port = 20000;
  r.probe.min_gbps = 0.02;
  r.probe.timeout_ms = 5000;
  Plan p = plan(two_rails(), r, probing_node({"198.18.0.200", ""}));
  CHECK(p.probe.port == 20000);
  CHECK(p.probe.min_gbps == 0.02);
  auto j = to_json(p);
  CHECK(j["probe"].dump() ==
        R"({"required":"required","port":20000,"bytes":16777216,"min_gbps":0.02,"max_latency_us":0.0,)"
        R"("timeout_ms":5000})");
  CHECK(j["rails"][0]["probe_peer"] == "198.18.0.200");
  CHECK(j["rails"][1]["probe_peer"].is_null());
  CHECK(to_text(p).find("  probe 198.18.0.200") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// the RoCE v2 GID

TEST_CASE("roce_v2_gid_index: the IPv4 RoCE v2 GID of the rail's interface") {
  Inventory inv = two_rails();
  Plan p = plan(inv, recipe());
  CHECK(p.rails[0].roce_v2_gid_index == 3);
  // A RoCE v1 entry and an IPv6 one are passed over.
  inv.rdma[0].ports[0].gids = {gid(0, "ens0f0", "IB/RoCE v1"), gid(2, "ens0f0"), gid(4, "ens0f0")};
  inv.rdma[0].ports[0].gids[1].gid = "fe80:0000:0000:0000:0e42:a1ff:fe10:0000";
  CHECK(plan(inv, recipe()).rails[0].roce_v2_gid_index == 4);
  inv.rdma[0].ports[0].gids.clear();
  CHECK(!plan(inv, recipe()).rails[0].roce_v2_gid_index);
}

TEST_CASE("roce_v2_gid_index: on a VLAN rail, the GID of the VLAN netdev") {
  // The rail's GID is the one whose interface is the rail's netdev (the VLAN device), also
  // under the railN.VLAN fallback name; GIDs of the untagged interface or other VLANs do not count.
  Recipe r = recipe();
  r.fabric.vlan = 200;
  Inventory inv = two_rails();
  inv.rdma[0].ports[0].gids = {gid(3, "ens0f0"), gid(5, "ens0f0.200")};
  CHECK(plan(inv, r).rails[0].roce_v2_gid_index == 5);
  inv.rdma[0].ports[0].gids = {gid(3, "ens0f0.100"), gid(5, "ens0f0.200")};
  CHECK(plan(inv, r).rails[0].roce_v2_gid_index == 5);
  // A name too long for ifname.VLAN: the netdev is rail0.200, whose GID is never found.
  inv.nics[1].ifname = "enp19s0f0np0";
  inv.rdma[0].ports[0].gids = {gid(3, "rail0.200")};
  Plan p = plan(inv, r);
  CHECK(p.rails[0].netdev == "rail0.200");
  CHECK(p.rails[0].roce_v2_gid_index == 3);
}

// ---------------------------------------------------------------------------------------------
// determinism and rendering

TEST_CASE("the same inputs give the same plan, byte for byte") {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  r.gpudirect.disable_acs = true;
  r.nvmeof = {target(0), target(1, NvmeTransport::tcp)};
  Inventory inv = managed_server({{2, 1}, {2, 1}, {2, 1}, {2, 0}});
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24"};
  NodeEntry n = node({"198.18.0.11", "198.18.1.11", "198.18.2.11"});
  std::string first = to_json(make_plan(inv, r, n)).dump();
  CHECK(to_json(make_plan(inv, r, n)).dump() == first);
  CHECK(to_text(make_plan(inv, r, n)) == to_text(make_plan(inv, r, n)));

  // Discovery's order does not matter once normalize() has run.
  Inventory shuffled = inv;
  std::reverse(shuffled.gpus.begin(), shuffled.gpus.end());
  std::reverse(shuffled.nics.begin(), shuffled.nics.end());
  std::reverse(shuffled.rdma.begin(), shuffled.rdma.end());
  normalize(shuffled);
  CHECK(to_json(make_plan(shuffled, r, n)).dump() == first);
}

TEST_CASE("to_json: one rail in full") {
  Recipe r = recipe();
  r.fabric.vlan = 200;
  Inventory inv = managed_server({{1, 1}});
  for (auto& n : inv.nics) n.pci.model = "MT2910 Family [ConnectX-7]";  // udev's hardware database name
  Plan p = plan(inv, r);
  auto j = to_json(p)["rails"][0];
  j.erase("dscp_to_priority");
  // The fixture's GIDs sit on the untagged ens0f0, not on the rail's ens0f0.200: no index yet.
  CHECK(
      j.dump() ==
      R"({"index":0,"ifname":"ens0f0","nic_pci":"0000:13:00.0","nic_model":"MT2910 Family [ConnectX-7]",)"
      R"("rdma_device":"mlx5_0","soft_roce":false,)"
      R"("rdma_port":1,"gpu_pcis":["0000:12:00.0"],"affinity":"PIX","vlan":200,"netdev":"ens0f0.200","mtu":9000,)"
      R"("roce_path_mtu":4096,"address":"198.18.0.11/24","table":null,)"
      R"("sysctls":{"net/ipv4/conf/ens0f0.200/arp_ignore":"1","net/ipv4/conf/ens0f0.200/arp_announce":"2"},)"
      R"("pfc_priority":3,"pfc_enable":"0x08","trust":"dscp","ecn_priority":3,"cnp_dscp":48,"roce_dscp":26,"roce_tos":106,)"
      R"("storm_timeout_ms":100,"roce_v2_gid_index":null,"route_probes":[],"lldp":{"system":null,"port":null},)"
      R"("probe_peer":null})");
}

TEST_CASE("plan: carries what verify compares with, so that verify never reads the recipe") {
  Recipe r = recipe();
  r.hardware.gpu_device_ids = {"0x2330"};
  r.hardware.pcie_gen = 5;
  r.hardware.rail_speed_mbps = 400000;
  r.hardware.max_affinity = Affinity::PHB;
  r.selftest.pause_storm_pps = 2500;
  r.selftest.rdma_min_mbps = 90000;
  r.fabric.pfc_priority = 4;
  r.fabric.roce_dscp = 34;
  r.fabric.trust = Trust::pcp;
  Plan p = plan(managed_server({{1, 1}}), r);
  CHECK(p.hardware.gpu_device_ids == std::vector<std::string>{"0x2330"});
  CHECK(p.hardware.pcie_gen == 5);
  CHECK(p.hardware.rail_speed_mbps == 400000);
  CHECK(p.hardware.max_affinity == Affinity::PHB);
  CHECK(p.selftest.pause_storm_pps == 2500);
  CHECK(p.selftest.rdma_min_mbps == 90000);
  REQUIRE(p.rails.size() == 1);
  CHECK(p.rails[0].pfc_priority == 4);
  CHECK(p.rails[0].pfc_enable == 0x10);
  CHECK(p.rails[0].roce_dscp == 34);
  CHECK(p.rails[0].trust == Trust::pcp);
  auto j = to_json(p);
  CHECK(j["hardware"]["max_affinity"] == "PHB");
  CHECK(j["selftest"]["pause_storm_pps"] == 2500);
  CHECK(j["rails"][0]["pfc_priority"] == 4);
  CHECK(j["rails"][0]["trust"] == "pcp");

  r.fabric.pfc = Requirement::off;
  Plan off = plan(managed_server({{1, 1}}), r);
  CHECK(off.rails[0].pfc_priority == -1);
  CHECK_FALSE(off.rails[0].trust.has_value());
  CHECK(to_json(off)["rails"][0]["pfc_priority"].is_null());
}
