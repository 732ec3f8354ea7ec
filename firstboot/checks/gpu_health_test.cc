// The GPU health checks (checks/gpu_health.cc) on NVML readings built in code: healthy GPUs
// pass; each fault the issue names fails or warns, saying what was seen and what to do.
#include <doctest/doctest.h>

#include "support/verify_node.h"

#include "checks/gpu_health.h"
#include "gpu/nvml.h"

TEST_CASE("gpu health: the plan has NVML's checks per GPU on NVIDIA GPUs, and not when the recipe turns them off") {
  Node n;
  std::vector<std::string> names;
  for (const auto& c : n.plan.checks)
    if (c.id.scope() == CheckScope::gpu && c.id.index == 1) names.push_back(c.id.name());
  CHECK(names == std::vector<std::string>{"gpu.1.pcie_link", "gpu.1.nvml", "gpu.1.persistence", "gpu.1.ecc",
                                          "gpu.1.row_remap", "gpu.1.xid", "gpu.1.throttle", "gpu.1.temperature",
                                          "gpu.1.nvml_pcie", "gpu.1.nvlink"});
  auto r = n.check("gpu.1.ecc");
  CHECK(r.expected == "ECC on, <= 0 volatile uncorrectable errors");
  CHECK(r.required);
  CHECK_FALSE(n.check("gpu.1.persistence").required);  // only ever warns
  CHECK_FALSE(n.check("rail.0.gpu_topology").required);

  Node off([](Recipe& rc) { rc.selftest.gpu_health = Requirement::off; });
  for (const auto& c : off.plan.checks) {
    CAPTURE(c.id.name());
    CHECK_FALSE(checks::reads_nvml(c.id.kind));
    CHECK(c.id.kind != CheckKind::gpu_xid);
  }
  Node amd([](Recipe& rc) { rc.hardware.gpu_vendor = GpuVendor::amd; });
  CHECK_FALSE(checks::plans_gpu_health(amd.plan));

  Node best([](Recipe& rc) { rc.selftest.gpu_health = Requirement::best_effort; });
  best.nvml.gpus[0].temperature_c = 97u;
  r = best.check("gpu.0.temperature");
  CHECK(r.expected == "<= 85 °C (best-effort)");
  CHECK(r.status == CheckStatus::warn);  // not required: a finding warns
}

TEST_CASE("gpu health: healthy GPUs pass every NVML check, each saying what NVML reported") {
  Node n;
  for (const auto& r : n.verify_all()) {
    if (!checks::reads_nvml(r.id.kind) && r.id.kind != CheckKind::gpu_xid) continue;
    CAPTURE(text(r));
    CHECK(r.status == CheckStatus::pass);
  }
  CHECK(n.check("gpu.0.nvml").observed == "NVIDIA H100 80GB HBM3, GPU-00000000-1111-2222-3333-444444444444");
  CHECK(n.check("gpu.0.nvml").detail == "driver 550.54.15");
  CHECK(n.check("gpu.2.ecc").observed == "on, 0 volatile uncorrectable errors");
  CHECK(n.check("gpu.2.throttle").observed == "idle");
  CHECK(n.check("gpu.2.nvlink").observed == "18 of 18 active");
  CHECK(n.check("gpu.2.xid").observed == "none since boot");
  CHECK(contains(n.check("rail.1.gpu_topology").observed, "agrees with NVML on 2 GPU pairs"));
}

TEST_CASE("gpu.N.ecc: an uncorrectable error fails; ECC off fails; the recipe's bound is honoured") {
  Node n;
  n.nvml.gpus[1].ecc = NvmlEcc{true, true, 2};
  auto r = n.check("gpu.1.ecc");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "on, 2 volatile uncorrectable errors");
  CHECK(contains(r.detail, "DCGM"));
  n.nvml.gpus[1].ecc = NvmlEcc{false, true, 0};
  r = n.check("gpu.1.ecc");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "ECC off");
  CHECK(contains(r.detail, "next GPU reset"));

  Node lenient([](Recipe& rc) { rc.selftest.gpu_max_ecc_uncorrected = 2; });
  lenient.nvml.gpus[1].ecc = NvmlEcc{true, true, 2};
  CHECK(lenient.check("gpu.1.ecc").status == CheckStatus::pass);
}

TEST_CASE("gpu.N.row_remap: a pending remap or a failed one fails; page retirement on older GPUs") {
  Node n;
  n.nvml.gpus[0].remap = NvmlRemap{true, 1, 1, true, false};
  auto r = n.check("gpu.0.row_remap");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "remap pending; 1 correctable, 1 uncorrectable rows remapped");
  CHECK(contains(r.detail, "reset the GPU"));
  n.nvml.gpus[0].remap = NvmlRemap{true, 0, 512, false, true};
  CHECK(contains(n.check("gpu.0.row_remap").detail, "needs service"));
  NvmlRemap pages;
  pages.row_remapping = false;
  pages.pending = true;
  n.nvml.gpus[0].remap = pages;
  CHECK(n.check("gpu.0.row_remap").observed == "page retirement pending");
}

TEST_CASE("gpu.N.xid: a fatal XID for this GPU fails, another warns, other GPUs' XIDs are theirs") {
  Node n;
  const std::string gpu0 = n.plan.gpus[0], gpu1 = n.plan.gpus[1];
  std::string bus0 = gpu0.substr(0, gpu0.rfind('.'));
  n.nvml.xids = parse_xids("NVRM: Xid (PCI:" + bus0 +
                           "): 79, pid=1234, GPU has fallen off the bus.\n"
                           "NVRM: Xid (PCI:" +
                           bus0 + "): 13, pid=77, Graphics Exception\n");
  auto r = n.check("gpu.0.xid");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "XID 79 (also 13)");
  CHECK(contains(r.detail, "fallen off the bus"));
  CHECK(n.check("gpu.1.xid").status == CheckStatus::pass);

  n.nvml.xids = parse_xids("[  12.3] NVRM: Xid (PCI:" + bus0 + "): 13, pid=77, Graphics Exception\n");
  r = n.check("gpu.0.xid");
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "XID 13");

  n.nvml.xids = Outcome<std::vector<Xid>>::fail(EACCES, "the kernel log: open /dev/kmsg: Permission denied");
  r = n.check("gpu.0.xid");
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.detail, "Permission denied"));
}

TEST_CASE("gpu.N.throttle, temperature, nvml_pcie: hardware slowdown fails, heat fails, a narrow link warns") {
  Node n;
  n.nvml.gpus[2].throttle = std::uint64_t{0x40 | 0x4};
  auto r = n.check("gpu.2.throttle");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "software power cap, hardware thermal slowdown");
  n.nvml.gpus[2].throttle = std::uint64_t{0x20};
  CHECK(n.check("gpu.2.throttle").status == CheckStatus::warn);

  n.nvml.gpus[2].temperature_c = 91u;
  r = n.check("gpu.2.temperature");
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "91 °C");
  CHECK(contains(r.detail, "85 °C"));

  n.nvml.gpus[2].pcie = NvmlPcie{5, 16, 5, 8};
  r = n.check("gpu.2.nvml_pcie");
  CHECK(r.status == CheckStatus::warn);
  CHECK(r.observed == "Gen5 x8 (max Gen5 x16)");
  n.nvml.gpus[2].pcie = NvmlPcie{5, 16, 1, 16};  // idle: the generation drops
  r = n.check("gpu.2.nvml_pcie");
  CHECK(r.status == CheckStatus::pass);
  CHECK(contains(r.detail, "idle"));
}

TEST_CASE("gpu.N.nvlink: a link down fails naming it; the recipe's count; no NVLink skips") {
  Node n;
  std::vector<bool> links(18, true);
  links[3] = false;
  n.nvml.gpus[1].nvlinks = links;
  auto r = n.check("gpu.1.nvlink");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(r.observed == "17 of 18 active; link 3 inactive");
  n.nvml.gpus[1].nvlinks = std::vector<bool>{};
  CHECK(n.check("gpu.1.nvlink").status == CheckStatus::skip);

  Node want([](Recipe& rc) { rc.hardware.nvlinks_per_gpu = 18; });
  want.nvml.gpus[1].nvlinks = std::vector<bool>(12, true);
  r = want.check("gpu.1.nvlink");
  CHECK(r.expected == ">= 18 NVLinks active");
  CHECK(r.status == CheckStatus::fail);
}

TEST_CASE("gpu health without NVML: unsupported with the reason; a broken driver or an unknown GPU fails") {
  Node n;
  n.nvml = NvmlReading{};
  n.nvml.unavailable = "NVML is not on this node (libnvidia-ml.so.1: cannot open shared object file)";
  auto r = n.check("gpu.0.ecc");
  CHECK(r.status == CheckStatus::unsupported);
  CHECK(contains(r.detail, "cannot open shared object file"));
  CHECK(n.check("rail.0.gpu_topology").status == CheckStatus::unsupported);

  n.nvml.library_present = true;
  n.nvml.unavailable = "nvmlInit_v2: Driver Not Loaded";
  CHECK(n.check("gpu.0.nvml").status == CheckStatus::fail);

  Node m;
  m.nvml.missing.push_back(m.nvml.gpus[2].pci + ": nvmlDeviceGetHandleByPciBusId_v2: Not Found");
  m.nvml.gpus.pop_back();
  r = m.check("gpu.2.nvml");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::fail);
  CHECK(contains(r.detail, "Not Found"));
}

TEST_CASE("rail.N.gpu_topology: NVML disagreeing with railyard's reading warns, naming both answers") {
  Node n;
  const RailPlan& rail = n.rail(0);
  REQUIRE_FALSE(rail.gpu_pcis.empty());
  for (auto& p : n.nvml.topology)
    if (p.a == rail.gpu_pcis[0] || p.b == rail.gpu_pcis[0]) p.level = NvmlTopology::single;
  auto r = n.check("rail.0.gpu_topology");
  CAPTURE(text(r));
  CHECK(r.status == CheckStatus::warn);
  CHECK(contains(r.detail, "NVML PIX"));
  CHECK(contains(r.detail, "railyard "));

  Node numa;
  numa.nvml.gpus[0].numa_node = 1;  // railyard put GPU 0 and its NIC on NUMA node 0
  r = numa.check("rail.0.gpu_topology");
  CHECK(r.status == CheckStatus::warn);
  CHECK(contains(r.detail, "NUMA node 1"));
}

TEST_CASE("a test double of NVML is named on every check it answers") {
  Node n;
  n.nvml.stand_in = "railyard's test double of libnvidia-ml.so.1";
  auto r = n.check("gpu.0.temperature");
  CHECK(r.status == CheckStatus::pass);
  CHECK(contains(r.detail, "read from railyard's test double of libnvidia-ml.so.1, not from a GPU"));
  CHECK_FALSE(contains(n.check("gpu.0.pcie_link").detail, "test double"));  // sysfs, not NVML
}
