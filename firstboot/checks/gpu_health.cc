#include "checks/gpu_health.h"

#include <algorithm>
#include <cstdio>

#include "affinity.h"
#include "gpu/nccl.h"
#include "gpu/nvml.h"
#include "text.h"
#include "objects/result.h"

namespace railyard::checks {

namespace {

// nvmlClocksThrottleReason* bits (NVML's API reference).
constexpr std::uint64_t kHwSlowdown = 0x8, kSwThermal = 0x20, kHwThermal = 0x40, kPowerBrake = 0x80;
constexpr std::pair<std::uint64_t, const char*> kReasons[] = {
    {0x1, "idle"},
    {0x2, "application clocks"},
    {0x4, "software power cap"},
    {kHwSlowdown, "hardware slowdown"},
    {0x10, "sync boost"},
    {kSwThermal, "software thermal slowdown"},
    {kHwThermal, "hardware thermal slowdown"},
    {kPowerBrake, "hardware power brake"},
    {0x100, "display clock setting"},
};

std::string reasons(std::uint64_t bits) {
  std::vector<std::string> out;
  for (auto [bit, name] : kReasons)
    if (bits & bit) out.push_back(name);
  return out.empty() ? "none" : join(out, ", ");
}

std::string plan_gpu(const VerifyContext& ctx, int index) {
  auto i = static_cast<std::size_t>(index);
  return index >= 0 && i < ctx.plan.gpus.size() ? ctx.plan.gpus[i] : "";
}

// The GPU's reading, or the check's result when there is none: unsupported where NVML is not
// on the node, failed where it is and does not work or does not know the GPU.
const NvmlGpu* nvml_gpu(const VerifyContext& ctx, int index, CheckResult& r) {
  std::string pci = plan_gpu(ctx, index);
  if (pci.empty()) {
    fail(r, "absent", "the plan has no GPU " + std::to_string(index));
    return nullptr;
  }
  const NvmlReading* n = ctx.nvml;
  if (!n) {
    unsupported(r, "not read", "this run did not read NVML");
    return nullptr;
  }
  if (n->unavailable) {
    if (n->library_present) fail(r, "NVML failed", *n->unavailable);
    else unsupported(r, "no NVML", *n->unavailable);
    return nullptr;
  }
  if (const NvmlGpu* g = n->gpu(pci)) return g;
  fail(r, "not in NVML",
       pci + ": " + n->missing_reason(pci).value_or("NVML does not list it") +
           " (the driver did not take the GPU: see dmesg and nvidia-smi)");
  return nullptr;
}

template <class T>
bool read_ok(const Outcome<T>& o, CheckResult& r) {
  if (o.ok()) return true;
  from_status(r, o.status());
  return false;
}

std::optional<Affinity> as_affinity(NvmlTopology t) {
  switch (t) {
    case NvmlTopology::internal:
    case NvmlTopology::single: return Affinity::PIX;
    case NvmlTopology::multiple: return Affinity::PXB;
    case NvmlTopology::hostbridge: return Affinity::PHB;
    case NvmlTopology::node: return Affinity::NODE;
    case NvmlTopology::system: return Affinity::SYS;
  }
  return std::nullopt;
}

const Gpu* inventory_gpu(const Inventory& inv, const std::string& pci) {
  for (const auto& g : inv.gpus)
    if (g.pci.bdf == pci) return &g;
  return nullptr;
}

}  // namespace

bool reads_nvml(CheckKind k) { return has_trait(k, kReadsNvml); }

bool plans_gpu_health(const Plan& plan) {
  return std::any_of(plan.checks.begin(), plan.checks.end(),
                     [](const PlannedCheck& c) { return reads_nvml(c.id.kind) || c.id.kind == CheckKind::gpu_xid; });
}

bool plans_nccl(const Plan& plan) {
  return std::any_of(plan.checks.begin(), plan.checks.end(),
                     [](const PlannedCheck& c) { return c.id.kind == CheckKind::nccl_all_reduce; });
}

void gpu_nvml(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g) return;
  if (!read_ok(g->name, r) || !read_ok(g->uuid, r)) return;
  pass(r, *g->name + ", " + *g->uuid, ctx.nvml->driver_version.empty() ? "" : "driver " + ctx.nvml->driver_version);
}

void gpu_persistence(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->persistence, r)) return;
  if (*g->persistence) pass(r, "on");
  else
    fail(r, "off",
         "without persistence mode the driver tears the GPU's state down whenever no process holds it, and every "
         "job start pays for bringing it up again: enable nvidia-persistenced");
}

void gpu_ecc(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->ecc, r)) return;
  const NvmlEcc& e = *g->ecc;
  if (!e.enabled) {
    fail(r, "ECC off",
         e.pending_enabled ? "enabled for the next GPU reset: reset the GPU or reboot"
                           : "memory errors would go unnoticed: enable it (nvidia-smi -e 1) and reset the GPU");
    return;
  }
  std::string obs = "on, " + std::to_string(e.volatile_uncorrected) + " volatile uncorrectable error" +
                    (e.volatile_uncorrected == 1 ? "" : "s");
  if (e.volatile_uncorrected > static_cast<std::uint64_t>(ctx.plan.selftest.gpu_max_ecc_uncorrected))
    fail(r, obs,
         "uncorrectable memory errors since the driver loaded: keep the node out, run the DCGM diagnostics; a GPU "
         "that keeps having them needs service");
  else pass(r, obs);
}

void gpu_row_remap(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->remap, r)) return;
  const NvmlRemap& m = *g->remap;
  if (!m.row_remapping) {
    if (m.pending)
      fail(r, "page retirement pending", "retired pages take effect at the next GPU reset: reset the GPU or reboot");
    else pass(r, "no page retirement pending");
    return;
  }
  std::string rows = std::to_string(m.corrected_rows) + " correctable, " + std::to_string(m.uncorrected_rows) +
                     " uncorrectable rows remapped";
  if (m.failure)
    fail(r, "remap failed; " + rows, "a row remap failed: the GPU has no spare rows left and needs service");
  else if (m.pending)
    fail(r, "remap pending; " + rows,
         "a row remap takes effect at the next GPU reset: reset the GPU or reboot before jobs run");
  else pass(r, "none pending; " + rows);
}

void gpu_xid(const VerifyContext& ctx, int index, CheckResult& r) {
  std::string pci = plan_gpu(ctx, index);
  if (pci.empty()) return fail(r, "absent", "the plan has no GPU " + std::to_string(index));
  if (!ctx.nvml) return unsupported(r, "not read", "this run did not read the kernel log");
  if (!read_ok(ctx.nvml->xids, r)) return;
  const auto& fatal = ctx.plan.selftest.gpu_fatal_xids;
  std::vector<std::string> bad, other, lines;
  for (const auto& x : *ctx.nvml->xids) {
    if (!xid_is_for(x, pci)) continue;
    std::string n = std::to_string(x.xid);
    auto& list = std::find(fatal.begin(), fatal.end(), x.xid) != fatal.end() ? bad : other;
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
    if (lines.size() < 3) lines.push_back(x.line);
  }
  if (bad.empty() && other.empty()) return pass(r, "none since boot");
  std::string obs = "XID " + join(bad.empty() ? other : bad, ", ");
  if (!bad.empty() && !other.empty()) obs += " (also " + join(other, ", ") + ")";
  std::string detail = join(lines, "; ");
  if (!bad.empty())
    fail(r, obs,
         detail +
             " — an XID the recipe counts as a GPU fault (selftest.gpu_fatal_xids): keep the node out and look "
             "the XID up in NVIDIA's XID catalog");
  else warn(r, obs, detail + " — usually an application's error, not the GPU's");
}

void gpu_throttle(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->throttle, r)) return;
  std::uint64_t bits = *g->throttle;
  std::string obs = reasons(bits);
  if (bits & (kHwSlowdown | kHwThermal | kPowerBrake))
    fail(r, obs,
         "the GPU halves its clocks or more to protect itself: check cooling, the power supplies and their cables "
         "(a power brake is asserted by the system)");
  else if (bits & kSwThermal) warn(r, obs, "the driver lowers the clocks for temperature: check the airflow");
  else pass(r, obs);
}

void gpu_temperature(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->temperature_c, r)) return;
  std::string obs = std::to_string(*g->temperature_c) + " °C";
  if (*g->temperature_c > static_cast<unsigned>(ctx.plan.selftest.gpu_max_temp_c))
    fail(r, obs,
         "hotter than the recipe's " + std::to_string(ctx.plan.selftest.gpu_max_temp_c) +
             " °C before any job runs: check the fans, the airflow and the heatsink");
  else pass(r, obs);
}

void gpu_nvml_pcie(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->pcie, r)) return;
  const NvmlPcie& p = *g->pcie;
  std::string obs = "Gen" + std::to_string(p.gen) + " x" + std::to_string(p.width) + " (max Gen" +
                    std::to_string(p.max_gen) + " x" + std::to_string(p.max_width) + ")";
  if (p.width < p.max_width)
    warn(r, obs, "the link trained narrower than the GPU and slot can do: reseat the GPU or its riser, check the slot");
  else if (p.gen < p.max_gen)
    pass(r, obs, "below its maximum generation: an idle GPU lowers its link speed to save power");
  else pass(r, obs);
}

void gpu_nvlink(const VerifyContext& ctx, int index, CheckResult& r) {
  const NvmlGpu* g = nvml_gpu(ctx, index, r);
  if (!g || !read_ok(g->nvlinks, r)) return;
  const auto& links = *g->nvlinks;
  const int want = ctx.plan.hardware.nvlinks_per_gpu;
  if (links.empty()) {
    if (want > 0) return fail(r, "no NVLink", "the recipe expects " + std::to_string(want) + " active NVLinks per GPU");
    r.status = CheckStatus::skip;
    r.observed = "no NVLink";
    r.detail = "this GPU has no NVLink";
    return;
  }
  std::vector<std::string> down;
  for (std::size_t i = 0; i < links.size(); ++i)
    if (!links[i]) down.push_back(std::to_string(i));
  int active = static_cast<int>(links.size() - down.size());
  std::string obs = std::to_string(active) + " of " + std::to_string(links.size()) + " active";
  if (!down.empty()) obs += "; link" + std::string(down.size() == 1 ? " " : "s ") + join(down, ", ") + " inactive";
  if (!down.empty() || (want > 0 && active < want))
    fail(r, obs,
         "GPU-to-GPU traffic over NVLink is degraded or falls back to PCIe: check the NVSwitch fabric "
         "(nvidia-fabricmanager) and nvidia-smi nvlink -s; a link that stays down needs service");
  else pass(r, obs);
}

void rail_gpu_topology(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (!ctx.nvml) return unsupported(r, "not read", "this run did not read NVML");
  const NvmlReading& n = *ctx.nvml;
  if (n.unavailable) return unsupported(r, "no NVML", *n.unavailable);
  const Nic* nic = ctx.now.nic(rail.ifname);
  std::vector<std::string> seen, disagree;
  for (const auto& pci : rail.gpu_pcis) {
    const NvmlGpu* g = n.gpu(pci);
    const Gpu* inv = inventory_gpu(ctx.now, pci);
    if (!g || !inv) {
      disagree.push_back(pci + ": " + n.missing_reason(pci).value_or("not in NVML"));
      continue;
    }
    // The NIC: NVML has no handle for it, but knows the GPU's NUMA node. railyard's affinity
    // up to NODE puts both on one NUMA node, SYS on two.
    if (nic && g->numa_node && nic->pci.numa_node >= 0 && rail.affinity) {
      bool same = *g->numa_node == nic->pci.numa_node;
      bool railyard_same = *rail.affinity != Affinity::SYS;
      seen.push_back(pci + " NUMA " + std::to_string(*g->numa_node) + ", " + rail.ifname + " NUMA " +
                     std::to_string(nic->pci.numa_node));
      if (same != railyard_same)
        disagree.push_back("railyard pairs " + pci + " with " + rail.ifname + " at " + to_string(*rail.affinity) +
                           ", NVML puts the GPU on NUMA node " + std::to_string(*g->numa_node) + " and the NIC is on " +
                           std::to_string(nic->pci.numa_node));
    }
    // The GPU's place among the other GPUs: NVML's common ancestor against railyard's reading
    // of the same PCI tree, which the pairing rests on.
    int agree = 0;
    for (const auto& other : ctx.now.gpus) {
      if (other.pci.bdf == pci) continue;
      const NvmlTopologyPair* p = n.pair(pci, other.pci.bdf);
      if (!p || !p->level.ok()) continue;
      auto theirs = as_affinity(*p->level);
      Affinity ours = classify_affinity(inv->pci, other.pci);
      if (theirs && *theirs == ours) ++agree;
      else
        disagree.push_back(pci + "↔" + other.pci.bdf + ": railyard " + to_string(ours) + ", NVML " +
                           std::string(to_string(*p->level)));
    }
    seen.push_back(pci + " agrees with NVML on " + std::to_string(agree) + " GPU pair" + (agree == 1 ? "" : "s"));
  }
  std::string obs = (rail.affinity ? to_string(*rail.affinity) + "; " : std::string()) + join(seen, "; ");
  if (disagree.empty()) pass(r, obs);
  else
    warn(
        r, obs,
        join(disagree, "; ") + " — the two readings of the PCIe tree differ: compare nvidia-smi topo -m with the plan");
}

void nccl_all_reduce(const VerifyContext& ctx, CheckResult& r) {
  const NcclRun* run = ctx.nccl;
  auto skip = [&](std::string observed, std::string detail) {
    r.status = CheckStatus::skip;
    r.observed = std::move(observed);
    r.detail = std::move(detail);
  };
  if (!run || !ctx.gpu_workloads) {
    skip("not run",
         "only first boot runs all_reduce_perf: on a node in service it would compete with the jobs on the GPUs");
    return;
  }
  if (run->not_run) {
    skip("not in the image", *run->not_run);
    return;
  }
  if (run->status == 124) {
    fail(r, "killed", run->command + ": still running after selftest.nccl_timeout_s (a hung GPU or NVLink?)");
    return;
  }
  auto a = parse_all_reduce(run->output);
  if (!a.ok()) {
    fail(r, "exit status " + std::to_string(run->status), run->command + ": " + a.error());
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GB/s bus bandwidth", a->busbw_gbps);
  std::string observed = buf;
  std::string detail = a->largest.empty() ? "" : "largest size: " + a->largest;
  if (a->wrong != 0) {
    fail(r, observed,
         std::to_string(a->wrong) + " wrong results (# Out of bounds values): a GPU or NVLink corrupts data");
    return;
  }
  if (run->status != 0) {
    fail(r, observed, run->command + " exited with status " + std::to_string(run->status));
    return;
  }
  const int min = ctx.plan.selftest.nccl_allreduce_min_gbps;
  if (a->busbw_gbps < min) {
    fail(r, observed,
         "below the recipe's " + std::to_string(min) + " GB/s: see gpu.N.nvlink, gpu.N.nvml_pcie and gpu.N.throttle" +
             (detail.empty() ? "" : "; " + detail));
    return;
  }
  pass(r, observed, detail);
}

}  // namespace railyard::checks
