#include "checks/data_path.h"

#include <algorithm>
#include <limits>

#include "checks/hardware.h"
#include "text.h"
#include "verify/result.h"

namespace railyard::checks {

namespace {

struct Endpoint {
  std::string dev;
  int gid = -1;
};

std::optional<Endpoint> endpoint(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const RdmaDevice* dev = rail_rdma_device(ctx.now, rail);
  if (!dev) {
    fail(r, "no RDMA device", "no RDMA device serves " + rail.ifname);
    return std::nullopt;
  }
  auto gid = roce_v2_gid_index(*dev, rail.rdma_port, rail.netdev, false);
  if (!gid) {
    fail(r, "no RoCE v2 GID", "no RoCE v2 IPv4 GID on " + rail.netdev + " to address the test to");
    return std::nullopt;
  }
  return Endpoint{dev->name, *gid};
}

std::string mbps(double v) { return std::to_string(static_cast<long>(v)) + " Mb/s"; }

}  // namespace

void cross_rdma_write(const VerifyContext& ctx, CheckResult& r) {
  const auto& st = ctx.plan.selftest;
  auto bytes = static_cast<std::size_t>(st.rdma_bytes);
  std::string observed, failures;
  for (std::size_t a = 0; a < ctx.plan.rails.size(); ++a)
    for (std::size_t b = a + 1; b < ctx.plan.rails.size(); ++b) {
      CheckResult tmp;
      auto from = endpoint(ctx, ctx.plan.rails[a], tmp);
      auto to = endpoint(ctx, ctx.plan.rails[b], tmp);
      std::string pair = std::to_string(a) + "→" + std::to_string(b);
      if (!from || !to) {
        failures += (failures.empty() ? "" : "; ") + pair + ": " + tmp.detail;
        continue;
      }
      auto t = ctx.rdma.write_test(from->dev, from->gid, to->dev, to->gid, bytes, st.check_timeout_ms);
      if (t.ok()) observed += (observed.empty() ? "" : ", ") + pair + " " + mbps(*t);
      else failures += (failures.empty() ? "" : "; ") + pair + ": " + t.error();
    }
  if (failures.empty()) pass(r, observed);
  else fail(r, observed.empty() ? "failed" : observed, failures);
}

void rdma_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const auto& st = ctx.plan.selftest;
  auto bytes = static_cast<std::size_t>(st.rdma_bytes);
  auto ep = endpoint(ctx, rail, r);
  if (!ep) return;
  auto t = ctx.rdma.write_test(ep->dev, ep->gid, ep->dev, ep->gid, bytes, st.check_timeout_ms);
  if (!t.ok()) {
    fail(r, "failed", t.error());
    return;
  }
  std::string obs = std::to_string(bytes) + " bytes verified at " + mbps(*t);
  if (st.rdma_min_mbps > 0 && *t < st.rdma_min_mbps)
    fail(r, obs, "below the recipe's " + mbps(st.rdma_min_mbps) + ": check PFC/ECN on the switch and the link");
  else pass(r, obs);
}

void gpudirect_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const auto& st = ctx.plan.selftest;
  auto bytes = static_cast<std::size_t>(st.rdma_bytes);
  if (!ctx.gpu_workloads) {
    r.status = CheckStatus::skip;
    r.observed = "not run";
    r.detail = "only first boot writes GPU memory: on a node in service a job may hold the GPU";
    return;
  }
  auto ep = endpoint(ctx, rail, r);
  if (!ep) return;
  std::vector<std::string> seen, failures, unsupported_why;
  std::optional<std::string> stand_in;
  double slowest = std::numeric_limits<double>::max();
  for (const auto& pci : rail.gpu_pcis) {
    auto t = ctx.rdma.gpu_write_test(ep->dev, ep->gid, pci, bytes, st.check_timeout_ms);
    if (t.ok()) {
      seen.push_back(pci + ": " + std::to_string(bytes) + " bytes verified at " + mbps(t->mbps) + " (" + t->registration + ")");
      if (t->stand_in) stand_in = t->stand_in;
      slowest = std::min(slowest, t->mbps);
    } else if (t.unsupported()) {
      unsupported_why.push_back(t.error());
    } else {
      failures.push_back(pci + ": " + t.error());
    }
  }
  // No CUDA driver on the node: nothing could be tried, which proves nothing either way.
  if (!unsupported_why.empty() && seen.empty() && failures.empty()) {
    unsupported(r, "no CUDA", unsupported_why.front());
    return;
  }
  for (const auto& u : unsupported_why) failures.push_back(u);
  std::string observed = seen.empty() ? "failed" : join(seen, "; ");
  std::string detail = join(failures, "; ");
  if (stand_in)
    detail += std::string(detail.empty() ? "" : "; ") + "GPU memory from " + *stand_in + " (host memory), not from a GPU";
  if (!failures.empty()) {
    fail(r, observed, detail);
    return;
  }
  if (st.rdma_min_mbps > 0 && slowest < st.rdma_min_mbps) {
    fail(r, observed,
         "below the recipe's " + mbps(st.rdma_min_mbps) +
             ": GPU memory reached through the host bridge is slower than host memory (see rail." +
             std::to_string(rail.index) + ".affinity and gpudirect.acs)" + (detail.empty() ? "" : "; " + detail));
    return;
  }
  pass(r, observed, detail);
}

}  // namespace railyard::checks
