// Which NICs are rails, in which order, and which GPUs each carries (rails.cc).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "rails.h"
#include "support/hardware_builder.h"

using namespace railyard;
using namespace railyard::test;

namespace {

HardwareSpec hardware(int rail_count = 0, std::vector<std::string> rails = {}) {
  HardwareSpec hw;
  hw.rail_count = rail_count;
  hw.rails = std::move(rails);
  return hw;
}

// "ifname[gpu bus numbers] ..." of the rails in rail order, e.g. "ens0f0[12 13] ens1f0[32]".
std::string rails(const Inventory& inv, const RailMap& m) {
  std::string out;
  for (std::size_t i = 0; i < m.rails.size(); ++i) {
    const Rail& r = m.rails[i];
    CHECK(r.index == static_cast<int>(i));
    out += (out.empty() ? "" : " ") + inv.nics[r.nic].ifname + "[";
    for (std::size_t g = 0; g < r.gpus.size(); ++g) out += (g ? " " : "") + inv.gpus[r.gpus[g]].pci.bdf.substr(5, 2);
    out += "]";
  }
  return out;
}

std::string non_rail(const Inventory& inv, const RailMap& m) {
  std::string out;
  for (std::size_t n : m.non_rail) out += (out.empty() ? "" : " ") + inv.nics[n].ifname;
  return out;
}

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// pinning

TEST_CASE("one to one: four GPUs and four NICs behind four switches") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(lines(m.problems) == "");
  CHECK(lines(m.warnings) == "");
  CHECK(rails(inv, m) == "ens0f0[12] ens1f0[32] ens2f0[52] ens3f0[72]");
  for (const auto& r : m.rails) CHECK(r.affinity == Affinity::PIX);
  CHECK(m.non_rail.empty());
  CHECK(rails(inv, map_rails(inv, hardware(4), false)) == "ens0f0[12] ens1f0[32] ens2f0[52] ens3f0[72]");
}

TEST_CASE("rail order follows the GPUs, never the interface names") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  const char* names[] = {"ens9", "ens3", "ens2", "ens1"};  // "ens9" on the lowest bus
  for (std::size_t i = 0; i < 4; ++i) inv.nics[i].ifname = names[i];
  CHECK(rails(inv, map_rails(inv, hardware(), false)) == "ens9[12] ens3[32] ens2[52] ens1[72]");
}

TEST_CASE("rail order follows GPU bus order, not NIC PCI order") {
  // GPU 0000:12 has NIC 0000:13 beside it; GPU 0000:32 has none, and its nearest NIC is ens9
  // on root port 0000:00:1d.0, lower on the bus than 0000:13.
  Inventory inv = server({{1, 1}, {1, 0}});
  add(inv, nic("ens9", pci("0000:05:00.0", "pci0000:00", {"0000:00:1d.0"}), "mlx5_9"));
  normalize(inv);
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12] ens9[32]");
  CHECK(m.rails[1].affinity == Affinity::PHB);
}

TEST_CASE("ties between classes break on fewer bridges before PCI address") {
  // The GPU's switch has no NIC: a NIC directly on a root port (4 hops) beats one behind
  // another switch (6 hops) although its address is higher.
  Inventory inv = server({{1, 0}, {0, 1}});
  add(inv, nic("ens9", pci("0000:e1:00.0", "pci0000:00", {"0000:00:1d.0"}), "mlx5_9"));
  normalize(inv);
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(rails(inv, m) == "ens9[12]");
  CHECK(non_rail(inv, m) == "ens1f0");
}

TEST_CASE("two equally close NICs: the lower PCI address wins, whatever the names and input order") {
  Inventory inv = server({{1, 2}});
  CHECK(rails(inv, map_rails(inv, hardware(), false)) == "ens0f0[12]");
  CHECK(non_rail(inv, map_rails(inv, hardware(), false)) == "ens0f1");

  // Names swapped and the NICs listed highest address first before normalize().
  Inventory swapped = server({{1, 2}});
  swapped.nics[0].ifname = "ens0f1";
  swapped.nics[1].ifname = "ens0f0";
  std::swap(swapped.nics[0], swapped.nics[1]);
  normalize(swapped);
  RailMap m = map_rails(swapped, hardware(), false);
  CHECK(rails(swapped, m) == "ens0f1[12]");
  CHECK(swapped.nics[m.rails[0].nic].pci.bdf == "0000:13:00.0");

  // The same input twice: the same answer.
  CHECK(rails_json(inv, map_rails(inv, hardware(), false)).dump() ==
        rails_json(inv, map_rails(inv, hardware(), false)).dump());
}

TEST_CASE("fewer NICs than GPUs: k GPUs per NIC") {
  Inventory inv = server({{2, 1}, {2, 1}, {2, 1}, {2, 1}});
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12 13] ens1f0[32 33] ens2f0[52 53] ens3f0[72 73]");
  CHECK(lines(m.warnings) == "");
}

TEST_CASE("fewer NICs than GPUs: balanced loads 3, 3, 2 over three rails") {
  // The fourth switch has two GPUs and no NIC; they go where there is room.
  Inventory inv = server({{2, 1}, {2, 1}, {2, 1}, {2, 0}});
  for (int rail_count : {0, 3}) {
    CAPTURE(rail_count);
    RailMap m = map_rails(inv, hardware(rail_count), false);
    CHECK(lines(m.problems) == "");
    CHECK(rails(inv, m) == "ens0f0[12 13 72] ens1f0[32 33 73] ens2f0[52 53]");
    CHECK(m.rails[0].affinity == Affinity::PHB);  // the worst of its pairs
    CHECK(m.rails[2].affinity == Affinity::PIX);
    CHECK(lines(m.warnings) ==
          "rail 0 (ens0f0): GPU↔NIC affinity PHB is worse than the recipe allows (PXB)\n"
          "rail 1 (ens1f0): GPU↔NIC affinity PHB is worse than the recipe allows (PXB)\n");
  }
}

TEST_CASE("fewer rails wanted than NICs near the GPUs: every GPU still pinned, shares balanced") {
  Inventory inv = server({{2, 1}, {2, 1}, {2, 1}, {2, 1}});
  RailMap m = map_rails(inv, hardware(2), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12 13 52 53] ens1f0[32 33 72 73]");
  CHECK(non_rail(inv, m) == "ens2f0 ens3f0");
}

TEST_CASE("more rails wanted than GPUs: the rest by PCI address, without GPUs") {
  Inventory inv = server({{1, 2}, {1, 2}});
  RailMap m = map_rails(inv, hardware(4), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12] ens1f0[32] ens0f1[] ens1f1[]");
  CHECK(!m.rails[2].affinity);
}

TEST_CASE("rail_count larger than the RDMA NICs: a problem, no rails") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}});
  RailMap m = map_rails(inv, hardware(8), false);
  CHECK(lines(m.problems) == "the recipe wants 8 rails; 6 RDMA NIC(s) found\n");
  CHECK(m.rails.empty());
  CHECK(rails(inv, map_rails(inv, hardware(6), false)) ==
        "ens0f0[12] ens1f0[32] ens2f0[52] ens3f0[72] ens4f0[92] ens5f0[b2]");
}

TEST_CASE("extra NICs (a dual-port storage NIC on another root) are non-rail") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  PciFunction port0 = pci("0000:c1:00.0", "pci0000:c0", {"0000:c0:01.0"}, 1);
  PciFunction port1 = port0;
  port1.bdf = "0000:c1:00.1";
  add(inv, nic("ens8f0np0", port0, "mlx5_8"));
  add(inv, nic("ens8f1np1", port1, "mlx5_9"));
  normalize(inv);
  for (int rail_count : {0, 4}) {
    CAPTURE(rail_count);
    RailMap m = map_rails(inv, hardware(rail_count), false);
    CHECK(rails(inv, m) == "ens0f0[12] ens1f0[32] ens2f0[52] ens3f0[72]");
    CHECK(non_rail(inv, m) == "ens8f0np0 ens8f1np1");
  }
}

TEST_CASE("no RDMA NIC at all: a problem") {
  Inventory inv = server({{1, 1, 0, false}});
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(lines(m.problems) == "no RDMA NIC found for the rails\n");
  CHECK(m.rails.empty());
}

// ---------------------------------------------------------------------------------------------
// hardware.rails

TEST_CASE("hardware.rails by interface name") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  RailMap m = map_rails(inv, hardware(0, {"ens2f0", "ens0f0"}), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12 32] ens2f0[52 72]");
  CHECK(non_rail(inv, m) == "ens1f0 ens3f0");
}

TEST_CASE("hardware.rails by PCI address, short and full form") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 1}, {1, 1}});
  RailMap m = map_rails(inv, hardware(0, {"53:00.0", "0000:13:00.0"}), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[12 32] ens2f0[52 72]");
}

TEST_CASE("hardware.rails naming what cannot be a rail: problems, no rails") {
  Inventory inv = server({{1, 1}, {1, 1}, {1, 0, 0, false}});
  // ens2f0 has no RDMA device
  inv.nics.push_back(
      nic("ens2f0", pci("0000:54:00.0", "pci0000:00", {"0000:00:03.0", "0000:50:00.0", "0000:51:01.0"}), std::nullopt));
  add_management(inv, std::string("mlx5_7"));

  RailMap unknown = map_rails(inv, hardware(0, {"ens0f0", "ens7f0"}), false);
  CHECK(lines(unknown.problems) == "hardware.rails names 'ens7f0', which is not on this node\n");
  CHECK(unknown.rails.empty());

  RailMap management = map_rails(inv, hardware(0, {"ens0f0", "eno1"}), false);
  CHECK(lines(management.problems) == "hardware.rails names 'eno1', the management interface; it is never a rail\n");
  CHECK(management.rails.empty());
  CHECK(lines(map_rails(inv, hardware(0, {"04:00.0"}), false).problems) ==
        "hardware.rails names '04:00.0', the management interface; it is never a rail\n");

  RailMap no_rdma = map_rails(inv, hardware(0, {"ens0f0", "54:00.0"}), false);
  CHECK(lines(no_rdma.problems) == "hardware.rails names '54:00.0' (ens2f0), which has no RDMA device\n");
  CHECK(no_rdma.rails.empty());
  // With Soft-RoCE it can be a rail.
  CHECK(rails(inv, map_rails(inv, hardware(0, {"ens0f0", "54:00.0"}), true)) == "ens0f0[12 32] ens2f0[52]");
}

TEST_CASE("RoCE LAG: a bonded card is one rail, named by the bond, either port or either function") {
  Inventory inv = server({{2, 1}, {2, 1}});
  bond_rails(inv);
  RailMap all = map_rails(inv, hardware(2), false);
  CHECK(lines(all.problems) == "");
  CHECK(rails(inv, all) == "bond0[12 13] bond1[32 33]");
  // A recipe written for the card names a port or a function; it means the bond.
  for (std::string ref : {"bond1", "ens1f0", "ens1f0p1", "34:00.0", "0000:34:00.1"}) {
    CAPTURE(ref);
    RailMap m = map_rails(inv, hardware(0, {ref}), false);
    CHECK(lines(m.problems) == "");
    CHECK(rails(inv, m) == "bond1[12 13 32 33]");
  }
  CHECK(lines(map_rails(inv, hardware(0, {"ens1f0", "ens1f0p1"}), false).problems) ==
        "hardware.rails names bond1 (0000:34:00.0) twice\n");
  auto json = rails_json(inv, all);
  CHECK(json[1]["ifname"] == "bond1");
  CHECK(json[1]["nic_pci"] == "0000:34:00.0");
  CHECK(json[1]["bond_ports"] == nlohmann::ordered_json{"ens1f0", "ens1f0p1"});
  CHECK_FALSE(rails_json(server({{1, 1}}), map_rails(server({{1, 1}}), hardware(1), false))[0].contains("bond_ports"));
}

TEST_CASE("hardware.rails by udev's path name: the same recipe whatever the interface is called now") {
  Inventory inv = server({{0, 1}, {0, 1}});
  // A .link file renamed them; udev still says where they are.
  inv.nics[0].ifname = "rail0";
  inv.nics[0].net_name_path = "enp18s0f0np0";
  inv.nics[0].id_path = "pci-" + inv.nics[0].pci.bdf;
  inv.nics[1].ifname = "rail1";
  inv.nics[1].net_name_path = "enp19s0f0np0";
  RailMap m = map_rails(inv, hardware(0, {"enp19s0f0np0", "pci-" + inv.nics[0].pci.bdf}), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "rail1[] rail0[]");
  CHECK(lines(map_rails(inv, hardware(0, {"enp20s0f0np0"}), false).problems) ==
        "hardware.rails names 'enp20s0f0np0', which is not on this node\n");
}

TEST_CASE("hardware.rails naming one NIC twice (by name and by address): a problem") {
  // The validator cannot resolve names to addresses; the rail mapping catches the repeat.
  Inventory inv = server({{0, 1}, {0, 1}});
  RailMap m = map_rails(inv, hardware(0, {"ens0f0", "12:00.0"}), false);
  CHECK(lines(m.problems) != "");
  CHECK(m.rails.empty());
}

// ---------------------------------------------------------------------------------------------
// GPU-less nodes, management, Soft-RoCE

TEST_CASE("no GPUs: every RDMA NIC is a rail, in PCI order") {
  Inventory inv = server({{0, 2}, {0, 2}});
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[] ens0f1[] ens1f0[] ens1f1[]");
  for (const auto& r : m.rails) CHECK(!r.affinity);
  CHECK(m.warnings.empty());
}

TEST_CASE("no GPUs and a smaller rail_count: the first NICs by PCI address, the rest non-rail") {
  Inventory inv = server({{0, 2}, {0, 2}});
  inv.nics[0].ifname = "ens9";  // names do not matter
  RailMap m = map_rails(inv, hardware(2), false);
  CHECK(rails(inv, m) == "ens9[] ens0f1[]");
  CHECK(non_rail(inv, m) == "ens1f0 ens1f1");
}

TEST_CASE("the management NIC is never a rail, even with an RDMA device") {
  Inventory inv = server({{0, 2}});
  add_management(inv, std::string("mlx5_7"));
  CHECK(inv.nics[0].ifname == "eno1");  // lowest on the bus
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(rails(inv, m) == "ens0f0[] ens0f1[]");
  CHECK(non_rail(inv, m) == "");
  for (std::size_t c : rail_candidates(inv, true)) CHECK(inv.nics[c].ifname != "eno1");
  // Not even to make up the count.
  CHECK(lines(map_rails(inv, hardware(3), false).problems) == "the recipe wants 3 rails; 2 RDMA NIC(s) found\n");
}

TEST_CASE("Soft-RoCE: NICs without an RDMA device are candidates") {
  Inventory inv = server({{0, 2, 0, false}});
  add_management(inv);
  Nic virt = nic("docker0", PciFunction{}, std::nullopt);  // no PCI function: never a candidate
  inv.nics.push_back(virt);
  normalize(inv);
  CHECK(rail_candidates(inv, false).empty());
  CHECK(lines(map_rails(inv, hardware(), false).problems) == "no RDMA NIC found for the rails\n");
  RailMap m = map_rails(inv, hardware(), true);
  CHECK(lines(m.problems) == "");
  CHECK(rails(inv, m) == "ens0f0[] ens0f1[]");
  CHECK(lines(map_rails(inv, hardware(3), true).problems) ==
        "the recipe wants 3 rails; 2 RDMA NIC(s) found (Soft-RoCE: NICs other than management)\n");
}

// ---------------------------------------------------------------------------------------------
// affinity limits and JSON

TEST_CASE("affinity worse than hardware.max_affinity: a warning naming the rail and both classes") {
  Inventory inv = server({{1, 0, 0}, {0, 1, 1}});  // the GPU on NUMA 0, the only NIC on NUMA 1
  RailMap m = map_rails(inv, hardware(), false);
  CHECK(rails(inv, m) == "ens1f0[12]");
  CHECK(m.rails[0].affinity == Affinity::SYS);
  CHECK(lines(m.warnings) == "rail 0 (ens1f0): GPU↔NIC affinity SYS is worse than the recipe allows (PXB)\n");
  CHECK(m.problems.empty());  // a warning, not a problem

  HardwareSpec lax = hardware();
  lax.max_affinity = Affinity::SYS;
  CHECK(map_rails(inv, lax, false).warnings.empty());
  HardwareSpec strict = hardware();
  strict.max_affinity = Affinity::PIX;
  Inventory good = server({{1, 1}});
  CHECK(map_rails(good, strict, false).warnings.empty());  // PIX is not worse than PIX
}

TEST_CASE("rails_json: the contract's field names and values") {
  Inventory inv = server({{2, 1}});
  CHECK(rails_json(inv, map_rails(inv, hardware(), false)).dump() ==
        R"([{"index":0,"ifname":"ens0f0","nic_pci":"0000:14:00.0","rdma_device":"mlx5_0",)"
        R"("gpu_pcis":["0000:12:00.0","0000:13:00.0"],"affinity":"PIX"}])");

  Inventory soft = server({{0, 1, 0, false}});
  CHECK(rails_json(soft, map_rails(soft, hardware(), true)).dump() ==
        R"([{"index":0,"ifname":"ens0f0","nic_pci":"0000:12:00.0","rdma_device":null,"gpu_pcis":[],"affinity":null}])");

  CHECK(rails_json(inv, RailMap{}).dump() == "[]");
}
