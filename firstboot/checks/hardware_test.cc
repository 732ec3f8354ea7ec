// The hardware checks (checks/hardware.cc): GPUs, PCIe links, rail NICs, affinity, speed, RDMA
// ports and GIDs.
#include <doctest/doctest.h>

#include "support/verify_node.h"

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
  n.device("mlx5_0").ports[0].gids = {test::gid(7, "ens0f0.200"), test::gid(5, "ens0f0.200")};
  CHECK(n.check("rail.0.roce_v2_gid").observed == "index 5 on ens0f0.200");
}

TEST_CASE("rail.N.roce_v2_gid: an IPv4 address on the parent interface, which NCCL's own GID choice would take") {
  Node n;
  // ens0f0 (the VLAN rail's parent) carries an untagged IPv4 address outside the plan: its
  // GID 1 is the port's lowest IPv4 RoCE v2 GID, NCCL's pick when no index is pinned.
  n.device("mlx5_0").ports[0].gids = {test::gid(1, "ens0f0"), test::gid(5, "ens0f0.200")};
  auto r = n.check("rail.0.roce_v2_gid");
  CAPTURE(text(r));
  // The other rails have GID index 3: nccl.conf cannot pin one index for all.
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "index 5 on ens0f0.200; NCCL would take index 1 on ens0f0");
  CHECK(contains(r.detail, "ens0f0 carries an IPv4 address outside the plan"));
  // With the rail's own GID at the index every rail has, nccl.conf pins it: a pass that says why.
  n.device("mlx5_0").ports[0].gids = {test::gid(1, "ens0f0"), test::gid(3, "ens0f0.200")};
  r = n.check("rail.0.roce_v2_gid");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::pass);
  CHECK(r.observed == "index 3 on ens0f0.200");
  CHECK(r.detail == "nccl.conf pins it; unpinned, NCCL would take index 1 on ens0f0");
}
