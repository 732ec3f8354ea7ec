#include "checks/peer_probe.h"

#include <algorithm>
#include <cstdio>
#include <future>
#include <mutex>
#include <thread>

#include "checks/counter_sample.h"
#include "checks/hardware.h"
#include "net.h"
#include "objects/result.h"
#include "probe/ibverbs_writer.h"
#include "text.h"

namespace railyard::checks {

namespace {

using Clock = std::chrono::steady_clock;

std::string us_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f µs", v);
  return buf;
}

std::string address_of(const std::optional<std::string>& cidr) {
  return cidr ? cidr->substr(0, cidr->find('/')) : std::string();
}

// One attempt's outcome, as `tried` lists it.
std::string attempt_text(const Outcome<ProbeOutcome>& o) {
  if (!o.ok()) return o.error();
  if (o->refused) return "refused: " + probe_refusal_text(*o->refused);
  return "completed";
}

// Worth another try before the deadline: the responder busy, or not (yet) answering.
bool retry_after(const Outcome<ProbeOutcome>& o) {
  if (!o.ok()) return o.code() == ECONNREFUSED || o.code() == ETIMEDOUT || o.code() == EHOSTUNREACH;
  return o->refused && *o->refused == ProbeRefusal::busy;
}

}  // namespace

WriterFactory ibverbs_writers() {
  return [](const std::string& dev, int gid, int mtu, std::chrono::milliseconds timeout, std::uint64_t seed) {
    return std::unique_ptr<ProbeWriter>(std::make_unique<IbverbsWriter>(dev, gid, mtu, timeout, seed));
  };
}

PeerProbes::PeerProbes(WriterFactory writers, std::chrono::milliseconds retry_pause)
    : writers_(std::move(writers)), retry_pause_(retry_pause) {}

const PeerRun& PeerProbes::run(const VerifyContext& ctx, const RailPlan& rail) {
  // Every rail's exchange at once, the first time any is asked for: each rail is a NIC of its
  // own, and a reference that never answers costs the timeout once, not once per rail.
  if (runs_.empty()) {
    std::vector<std::pair<int, std::future<PeerRun>>> running;
    for (const auto& r : ctx.plan.rails)
      if (!r.probe_peer.empty())
        running.emplace_back(r.index, std::async(std::launch::async, [this, &ctx, &r] { return exchange(ctx, r); }));
    for (auto& [index, f] : running) runs_.emplace(index, f.get());
  }
  auto it = runs_.find(rail.index);
  if (it == runs_.end()) it = runs_.emplace(rail.index, exchange(ctx, rail)).first;
  return it->second;
}

RailEnd rail_end(const VerifyContext& ctx, const RailPlan& rail) {
  RailEnd end;
  auto local = parse_ipv4(address_of(rail.address));
  end.dev = rail_rdma_device(ctx.now, rail);
  std::optional<int> gid = end.dev ? roce_v2_gid_index(*end.dev, rail.rdma_port, rail.netdev, false) : std::nullopt;
  if (!local) end.failed = "the rail has no address to probe from";
  else if (!end.dev) end.failed = "no RDMA device serves " + rail.ifname;
  else if (!gid) end.failed = "no RoCE v2 IPv4 GID on " + rail.netdev;
  if (!end.failed.empty()) return end;
  end.local = *local;
  end.gid = *gid;
  // The counters of the rail's physical interface (a bond's first port), where a NIC counts
  // its per-priority discards.
  end.netdev = rail.bond_ports.empty() ? rail.ifname : rail.bond_ports.front();
  const Nic* nic = ctx.now.nic(rail.ifname);
  end.layout = rail_counter_layout(!end.dev->pci.has_value(), nic ? nic->pci.driver : std::string());
  return end;
}

Outcome<CounterSample> sample_rail(const VerifyContext& ctx, const RailPlan& rail, const RailEnd& end) {
  return sample_counters(ctx.kernel.host.files, ctx.kernel.ethtool, end.dev->name, end.netdev, rail.rdma_port);
}

void write_until(const WriterFactory& writers, const RailEnd& end, const RailPlan& rail, ProbeTarget target,
                 Clock::time_point deadline, std::chrono::milliseconds retry_pause, PeerRun& out,
                 const std::function<void()>& before_attempt) {
  target.local = end.local;
  target.rail = static_cast<std::uint16_t>(rail.index);
  target.mtu = static_cast<std::uint16_t>(rail.roce_path_mtu);
  auto pause = retry_pause;
  for (int attempt = 1;; ++attempt) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    target.timeout = std::max(left, std::chrono::milliseconds(1));
    auto seed = static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()) ^
                (static_cast<std::uint64_t>(rail.index) << 56);
    std::unique_ptr<ProbeWriter> writer = writers(end.dev->name, end.gid, rail.roce_path_mtu, target.timeout, seed);
    if (before_attempt) before_attempt();
    auto o = probe_peer(target, *writer);
    if (o.ok() && !o->refused) {
      out.match = o->match;
      out.transfer = o->transfer;
      out.failed.reset();
      out.refused.reset();
      return;
    }
    out.tried.push_back("attempt " + std::to_string(attempt) + ": " + attempt_text(o));
    if (o.ok()) out.refused = o->refused;
    else out.failed = o.error();
    if (!retry_after(o) || Clock::now() + pause >= deadline) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(2000));
  }
}

void judge_rail(const RailEnd& end, const RailPlan& rail, const Outcome<CounterSample>& before,
                const Outcome<CounterSample>& after, PeerRun& out) {
  if (!end.layout) {
    out.counters_note = "no counter layout for this NIC's driver: counters not judged";
  } else if (!before.ok() || !after.ok()) {
    out.counters_note = "counters not read: " + (before.ok() ? after.error() : before.error());
  } else {
    out.counters = judge_counters(*end.layout, rail.pfc_priority >= 0 ? rail.pfc_priority : 0, before->hw, after->hw,
                                  before->ethtool, after->ethtool);
    out.counters_note = std::string(end.layout->driver) + " counters";
  }
}

PeerRun PeerProbes::exchange(const VerifyContext& ctx, const RailPlan& rail) {
  const ProbeSpec& spec = ctx.plan.probe;
  PeerRun out;
  out.reference = rail.probe_peer + ":" + std::to_string(spec.port);
  RailEnd end = rail_end(ctx, rail);
  auto peer = parse_ipv4(rail.probe_peer);
  if (end.failed.empty() && !peer) end.failed = "the rail has no address to probe from";
  if (!end.failed.empty()) {
    out.failed = end.failed;
    return out;
  }
  ProbeTarget target;
  target.peer = *peer;
  target.port = static_cast<std::uint16_t>(spec.port);
  target.bytes = static_cast<std::uint32_t>(spec.bytes);
  // The rails' exchanges take turns: each rail's figures are its own, not a share of the
  // reference's memory bandwidth or of the leaf's uplink, and a reference's NIC is not handed
  // every rail's burst at once (the lab's one virtio NIC drops what its ring cannot hold). The
  // timeout counts from the rail's turn, so that a slow rail does not spend another's.
  // The counters span the exchange that completed: read just before its attempt and just
  // after it, not across the other rails' turns or the retries' waits, when the rail's other
  // RDMA traffic (NVMe-oF on a storage rail) would be counted against the probe.
  auto before = Outcome<CounterSample>::fail("not read");
  auto after = Outcome<CounterSample>::fail("not read");
  {
    std::unique_lock turn(transfer_lock_);
    write_until(writers_, end, rail, target, Clock::now() + std::chrono::milliseconds(spec.timeout_ms), retry_pause_,
                out, [&] { before = sample_rail(ctx, rail, end); });
    if (out.completed()) after = sample_rail(ctx, rail, end);
  }
  if (!out.completed()) return out;
  judge_rail(end, rail, before, after, out);
  return out;
}

nlohmann::ordered_json peer_report(const PeerProbes& probes) {
  if (probes.runs().empty()) return nullptr;
  auto moves = [](const std::vector<CounterMove>& list) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& m : list) out.push_back({{"name", m.name}, {"delta", m.delta}});
    return out;
  };
  auto out = nlohmann::ordered_json::array();
  for (const auto& [rail, run] : probes.runs()) {
    nlohmann::ordered_json j = {{"rail", rail}, {"reference", run.reference}, {"completed", run.completed()}};
    if (run.completed()) {
      j["match"] = run.match;
      j["gbps"] = run.transfer.gbps;
      j["latency_us"] = run.transfer.latency_us;
    }
    if (run.counters) {
      j["violations"] = moves(run.counters->violations);
      j["congestion"] = moves(run.counters->congestion);
    }
    if (!run.counters_note.empty()) j["counters"] = run.counters_note;
    if (!run.tried.empty()) j["tried"] = run.tried;
    out.push_back(std::move(j));
  }
  return out;
}

std::optional<double> peer_min_gbps(const ProbeSpec& probe, bool soft_roce, int link_mbps) {
  if (probe.min_gbps > 0) return probe.min_gbps;
  if (soft_roce || link_mbps <= 0) return std::nullopt;
  return 0.8 * link_mbps / 1000.0;
}

std::optional<double> peer_max_latency_us(const ProbeSpec& probe, bool soft_roce) {
  if (probe.max_latency_us > 0) return probe.max_latency_us;
  if (soft_roce) return std::nullopt;
  return 50.0;
}

namespace {

// The run for a rail, or the result skipped without one.
const PeerRun* peer_run(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  if (!ctx.peers) {
    r.status = CheckStatus::skip;
    r.observed = "not probed";
    r.detail = "only first boot probes the references";
    return nullptr;
  }
  return &ctx.peers->run(ctx, rail);
}

// What the figures' checks say when the write did not complete: the write's check has why.
bool write_incomplete(const PeerRun& run, const RailPlan& rail, CheckResult& r) {
  if (run.completed()) return false;
  fail(r, "not measured",
       "no transfer to " + run.reference + " (see rail." + std::to_string(rail.index) + ".peer_write)");
  return true;
}

bool soft_roce(const VerifyContext& ctx, const RailPlan& rail) {
  const RdmaDevice* dev = rail_rdma_device(ctx.now, rail);
  return !rail.soft_roce_device.empty() || (dev && !dev->pci);
}

}  // namespace

void peer_write(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const PeerRun* run = peer_run(ctx, rail, r);
  if (!run) return;
  std::string tried = run->tried.empty() ? "" : " (" + join(run->tried, "; ") + ")";
  if (run->refused) {
    fail(r, "refused by " + run->reference, probe_refusal_text(*run->refused) + tried);
    return;
  }
  if (run->failed) {
    fail(r, "no exchange with " + run->reference, *run->failed + tried);
    return;
  }
  const std::string bytes = std::to_string(ctx.plan.probe.bytes) + " bytes to " + run->reference;
  if (!run->match) {
    fail(r, bytes + ": the reference holds other bytes", "the write completed but what arrived differs" + tried);
    return;
  }
  std::vector<std::string> notes{run->counters_note};
  if (!tried.empty()) notes.push_back("after " + join(run->tried, "; "));
  if (run->counters) {
    const CounterVerdict& v = *run->counters;
    if (!v.congestion.empty()) notes.push_back("congestion notifications " + describe_moves(v.congestion));
    if (!v.missing.empty()) notes.push_back("not reported by the device: " + join(v.missing, ", "));
    if (!v.went_backwards.empty()) notes.push_back("reset meanwhile: " + join(v.went_backwards, ", "));
    if (!v.lossless()) {
      fail(r, bytes + " verified, " + describe_moves(v.violations),
           "a lossless rail may not retransmit or drop: " + join(notes, "; "));
      return;
    }
  }
  pass(r, bytes + " verified" + (run->counters ? ", counters clean" : ""), join(notes, "; "));
}

void peer_bandwidth(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const PeerRun* run = peer_run(ctx, rail, r);
  if (!run || write_incomplete(*run, rail, r)) return;
  const Nic* nic = ctx.now.nic(rail.ifname);
  auto bound = peer_min_gbps(ctx.plan.probe, soft_roce(ctx, rail), nic ? nic->speed_mbps : -1);
  std::string observed = rate_text(run->transfer.gbps) + " to " + run->reference;
  if (bound && run->transfer.gbps < *bound)
    fail(r, observed, "below " + rate_text(*bound) + ": a link trained down, a dirty optic, or the leaf marking early");
  else pass(r, observed, bound ? "" : "no bound on Soft-RoCE: measured only");
}

void peer_latency(const VerifyContext& ctx, const RailPlan& rail, CheckResult& r) {
  const PeerRun* run = peer_run(ctx, rail, r);
  if (!run || write_incomplete(*run, rail, r)) return;
  auto bound = peer_max_latency_us(ctx.plan.probe, soft_roce(ctx, rail));
  std::string observed = us_text(run->transfer.latency_us) + " to " + run->reference;
  if (bound && run->transfer.latency_us > *bound)
    fail(r, observed, "above " + us_text(*bound) + ": a queue on the path (PFC pauses), or more hops than the leaf");
  else pass(r, observed, bound ? "" : "no bound on Soft-RoCE: measured only");
}

}  // namespace railyard::checks
