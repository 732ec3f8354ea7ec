// GPU↔NIC affinity in the vocabulary of `nvidia-smi topo -m` (affinity.cc).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "affinity.h"
#include "support/hardware_builder.h"
#include "text.h"

using namespace railyard;
using namespace railyard::test;

namespace {

std::string cls(const PciFunction& a, const PciFunction& b) { return to_string(classify_affinity(a, b)); }
std::string between(const PciFunction& a, const PciFunction& b) { return join(bridges_between(a, b), " "); }

// Host bridge pci0000:10 (NUMA 0), root port 0000:10:01.0 → switch: upstream port 0000:11:00.0,
// downstream ports 0000:12:00.0 and 0000:12:01.0.
const std::string kHb = "pci0000:10", kRoot = "0000:10:01.0", kUp = "0000:11:00.0", kDown0 = "0000:12:00.0",
                  kDown1 = "0000:12:01.0";

// GPU below the first downstream port, NIC (two ports) below the second.
const PciFunction kGpu = pci("0000:13:00.0", kHb, {kRoot, kUp, kDown0});
const PciFunction kNic = pci("0000:14:00.0", kHb, {kRoot, kUp, kDown1});
const PciFunction kNicPort1 = pci("0000:14:00.1", kHb, {kRoot, kUp, kDown1});

// Nested switches below root port 0000:20:01.0: a level-1 switch (upstream 0000:21:00.0,
// downstream 0000:22:00.0 and 0000:22:01.0), a level-2 switch below each downstream port.
const std::string kHb2 = "pci0000:20", kRoot2 = "0000:20:01.0", kUp1 = "0000:21:00.0", kDown1a = "0000:22:00.0",
                  kDown1b = "0000:22:01.0";
const PciFunction kNestedGpu = pci("0000:25:00.0", kHb2, {kRoot2, kUp1, kDown1a, "0000:23:00.0", "0000:24:00.0"});
const PciFunction kNestedNic = pci("0000:29:00.0", kHb2, {kRoot2, kUp1, kDown1b, "0000:27:00.0", "0000:28:00.0"});

// On the first host bridge, a second root port with its own switch.
const PciFunction kOtherRootNic = pci("0000:33:00.0", kHb, {"0000:10:02.0", "0000:31:00.0", "0000:32:00.0"});
// Another host bridge of NUMA node 0, and one of NUMA node 1.
const PciFunction kOtherHostNic = pci("0000:43:00.0", "pci0000:40", {"0000:40:01.0", "0000:41:00.0", "0000:42:00.0"});
const PciFunction kRemoteNic = pci("0000:c3:00.0", "pci0000:c0", {"0000:c0:01.0", "0000:c1:00.0", "0000:c2:00.0"}, 1);

}  // namespace

TEST_CASE("affinity classes are ordered best first") {
  CHECK(Affinity::PIX < Affinity::PXB);
  CHECK(Affinity::PXB < Affinity::PHB);
  CHECK(Affinity::PHB < Affinity::NODE);
  CHECK(Affinity::NODE < Affinity::SYS);
}

TEST_CASE("PIX: GPU and NIC below two downstream ports of one switch") {
  CHECK(cls(kGpu, kNic) == "PIX");
  CHECK(bridge_hops(kGpu, kNic) == 2);
  CHECK(between(kGpu, kNic) == "0000:12:00.0 0000:12:01.0");
}

TEST_CASE("PIX: two functions below one port") {
  CHECK(cls(kNic, kNicPort1) == "PIX");
  CHECK(bridge_hops(kNic, kNicPort1) == 0);
  CHECK(bridges_between(kNic, kNicPort1).empty());
}

TEST_CASE("PXB: GPU and NIC below different level-2 switches of one level-1 switch") {
  CHECK(cls(kNestedGpu, kNestedNic) == "PXB");
  CHECK(bridge_hops(kNestedGpu, kNestedNic) == 6);
  // Every port below the common upstream port 0000:21:00.0, on both sides.
  CHECK(between(kNestedGpu, kNestedNic) ==
        "0000:22:00.0 0000:22:01.0 0000:23:00.0 0000:24:00.0 0000:27:00.0 0000:28:00.0");
}

TEST_CASE("PXB: a device directly below the level-1 switch and one behind a level-2 switch") {
  PciFunction gpu = pci("0000:2a:00.0", kHb2, {kRoot2, kUp1, "0000:22:02.0"});
  CHECK(cls(gpu, kNestedNic) == "PXB");
  CHECK(bridge_hops(gpu, kNestedNic) == 4);
  // Both below one level-2 switch: PIX again.
  PciFunction nic = pci("0000:26:00.0", kHb2, {kRoot2, kUp1, kDown1a, "0000:23:00.0", "0000:24:01.0"});
  CHECK(cls(kNestedGpu, nic) == "PIX");
  CHECK(between(kNestedGpu, nic) == "0000:24:00.0 0000:24:01.0");
}

TEST_CASE("PHB: different root ports of one host bridge") {
  CHECK(cls(kGpu, kOtherRootNic) == "PHB");
  CHECK(bridge_hops(kGpu, kOtherRootNic) == 6);
  CHECK(bridges_between(kGpu, kOtherRootNic).empty());  // the traffic turns at the root complex anyway
  // A device directly on a root port of the same host bridge.
  PciFunction onboard = pci("0000:10:1c.0", kHb, {"0000:10:1b.0"});
  CHECK(cls(kGpu, onboard) == "PHB");
  CHECK(bridge_hops(kGpu, onboard) == 4);
}

TEST_CASE("NODE: different host bridges of one NUMA node") {
  CHECK(cls(kGpu, kOtherHostNic) == "NODE");
  CHECK(bridge_hops(kGpu, kOtherHostNic) == 6);
  CHECK(bridges_between(kGpu, kOtherHostNic).empty());
}

TEST_CASE("SYS: across NUMA nodes") {
  CHECK(cls(kGpu, kRemoteNic) == "SYS");
  CHECK(cls(kOtherHostNic, kRemoteNic) == "SYS");
  CHECK(bridge_hops(kGpu, kRemoteNic) == 6);
  CHECK(bridges_between(kGpu, kRemoteNic).empty());
}

TEST_CASE("affinity, bridge hops and the bridges between are symmetric") {
  const std::vector<PciFunction> all = {kGpu,       kNic,          kNicPort1,     kNestedGpu,
                                        kNestedNic, kOtherRootNic, kOtherHostNic, kRemoteNic};
  for (const auto& a : all)
    for (const auto& b : all) {
      CAPTURE(a.bdf);
      CAPTURE(b.bdf);
      CHECK(classify_affinity(a, b) == classify_affinity(b, a));
      CHECK(bridge_hops(a, b) == bridge_hops(b, a));
      CHECK(bridges_between(a, b) == bridges_between(b, a));
    }
}

TEST_CASE("a device is PIX with itself, 0 hops away") {
  CHECK(cls(kGpu, kGpu) == "PIX");
  CHECK(bridge_hops(kGpu, kGpu) == 0);
  CHECK(bridges_between(kGpu, kGpu).empty());
}
