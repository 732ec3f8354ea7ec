#include "checks/data_path.h"

#include <algorithm>
#include <future>
#include <limits>
#include <map>
#include <optional>

#include "checks/hardware.h"
#include "text.h"
#include "objects/result.h"

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

// Every pair of rails once, in rounds in which no rail appears twice (a round-robin
// tournament, the circle method; an odd count sits one rail out per round). The pairs of a
// round are tested at once: each NIC carries one test at a time, so the Mb/s a pair reports
// is its own, and 8 rails take 7 rounds instead of 28 tests one after another.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> rail_pair_rounds(std::size_t rails) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> rounds;
  if (rails < 2) return rounds;
  const std::size_t m = rails + rails % 2;  // with a bye when odd
  for (std::size_t r = 0; r + 1 < m; ++r) {
    std::vector<std::pair<std::size_t, std::size_t>> round;
    auto meet = [&](std::size_t a, std::size_t b) {
      if (a < rails && b < rails) round.emplace_back(std::min(a, b), std::max(a, b));
    };
    meet(r, m - 1);
    for (std::size_t k = 1; k < m / 2; ++k) meet((r + k) % (m - 1), (r + m - 1 - k) % (m - 1));
    rounds.push_back(std::move(round));
  }
  return rounds;
}

void cross_rdma_write(const VerifyContext& ctx, CheckResult& r) {
  const auto& st = ctx.plan.selftest;
  auto bytes = static_cast<std::size_t>(st.rdma_bytes);
  const std::size_t n = ctx.plan.rails.size();
  std::vector<std::optional<Endpoint>> ends(n);
  std::vector<std::string> why(n);
  for (std::size_t i = 0; i < n; ++i) {
    CheckResult tmp;
    ends[i] = endpoint(ctx, ctx.plan.rails[i], tmp);
    why[i] = tmp.detail;
  }
  std::map<std::pair<std::size_t, std::size_t>, Outcome<double>> results;
  for (const auto& round : rail_pair_rounds(n)) {
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::future<Outcome<double>>>> running;
    for (const auto& [a, b] : round) {
      if (!ends[a] || !ends[b]) continue;
      running.emplace_back(std::pair{a, b}, std::async(std::launch::async, [&ctx, from = *ends[a], to = *ends[b], bytes,
                                                                            timeout = st.check_timeout_ms] {
                             return ctx.rdma.write_test(from.dev, from.gid, to.dev, to.gid, bytes, timeout);
                           }));
    }
    for (auto& [pair, result] : running) results.emplace(pair, result.get());
  }
  std::string observed, failures;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      std::string pair = std::to_string(a) + "→" + std::to_string(b);
      if (!ends[a] || !ends[b]) {
        failures += (failures.empty() ? "" : "; ") + pair + ": " + (ends[a] ? why[b] : why[a]);
        continue;
      }
      const auto& t = results.at({a, b});
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
      seen.push_back(pci + ": " + std::to_string(bytes) + " bytes verified at " + mbps(t->mbps) + " (" +
                     t->registration + ")");
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
    detail +=
        std::string(detail.empty() ? "" : "; ") + "GPU memory from " + *stand_in + " (host memory), not from a GPU";
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
