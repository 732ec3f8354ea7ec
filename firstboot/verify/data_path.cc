// The RDMA data path: an RDMA WRITE per rail (its device to itself, over the wire's
// loopback in the NIC) and between every pair of rails.
#include "checks.h"

namespace railyard::checks {

namespace {

struct Endpoint {
  std::string dev;
  int gid = -1;
};

std::optional<Endpoint> endpoint(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const RdmaDevice* dev = ctx.now.rdma_device(rail.rdma_device);
  if (!dev)
    for (const auto& d : ctx.now.rdma)
      if (d.netdev == rail.ifname) dev = &d;
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

bool data_path(const VerifyContext& ctx, CheckResult& r) {
  const auto& st = ctx.recipe.selftest;
  auto bytes = static_cast<std::size_t>(st.rdma_bytes);
  if (r.name == "rails.cross_rdma_write") {
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
        if (t.ok()) observed += (observed.empty() ? "" : ", ") + pair + " " + mbps(*t.value);
        else failures += (failures.empty() ? "" : "; ") + pair + ": " + t.status.message;
      }
    if (failures.empty()) pass(r, observed);
    else fail(r, observed.empty() ? "failed" : observed, failures);
    return true;
  }
  auto rc = rail_check(ctx.plan, r.name);
  if (!rc.rail || rc.what != "rdma_write") return false;
  auto ep = endpoint(ctx, *rc.rail, r);
  if (!ep) return true;
  auto t = ctx.rdma.write_test(ep->dev, ep->gid, ep->dev, ep->gid, bytes, st.check_timeout_ms);
  if (!t.ok()) {
    fail(r, "failed", t.status.message);
    return true;
  }
  std::string obs = std::to_string(bytes) + " bytes verified at " + mbps(*t.value);
  if (st.rdma_min_mbps > 0 && *t.value < st.rdma_min_mbps)
    fail(r, obs, "below the recipe's " + mbps(st.rdma_min_mbps) + ": check PFC/ECN on the switch and the link");
  else pass(r, obs);
  return true;
}

}  // namespace railyard::checks
