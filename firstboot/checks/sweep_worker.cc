#include "checks/sweep_worker.h"

#include <future>
#include <map>
#include <thread>

#include "text.h"

namespace railyard::checks {

namespace {

using Wall = std::chrono::system_clock;

Wall::time_point at(const SweepWorker& w, double seconds) {
  return w.t0 + std::chrono::duration_cast<Wall::duration>(std::chrono::duration<double>(seconds));
}

std::string moves_text(const std::vector<CounterMove>& moves) {
  std::vector<std::string> parts;
  for (const auto& m : moves) parts.push_back(m.name + " +" + std::to_string(m.delta));
  return join(parts, ", ");
}

// One write of the round: the slot, the rail it runs on, and what it found.
struct Write {
  SweepSlot slot;
  const RailPlan* rail = nullptr;
  RailEnd end;
  std::string peer_address;
  std::string skipped;  // why the write cannot run at all
  Outcome<CounterSample> before = Outcome<CounterSample>::fail("not read");
  PeerRun run;
};

SweepResult result_of(const Write& w, const std::string& node) {
  SweepResult r;
  r.test = w.slot.test;
  r.from = node;
  if (!w.skipped.empty()) {
    r.error = sweep_note(w.skipped);
    return r;
  }
  if (!w.run.completed()) {
    r.error = sweep_note(w.run.refused ? "refused by " + w.slot.peer + ": " + probe_refusal_text(*w.run.refused)
                                       : w.run.failed.value_or("no exchange"));
  } else if (!w.run.match) {
    r.error = sweep_note(w.slot.peer + "'s memory did not hold what was written");
  } else {
    r.ok = true;
  }
  r.gbps = w.run.completed() ? w.run.transfer.gbps : 0;
  std::string counters = w.run.counters ? moves_text(w.run.counters->violations) : std::string();
  (w.slot.as_a ? r.a_counters : r.b_counters) = sweep_note(counters);
  return r;
}

}  // namespace

SweepWait sleep_until_wall_clock() {
  return [](Wall::time_point t) { std::this_thread::sleep_until(t); };
}

std::vector<SweepResult> run_sweep_writes(const VerifyContext& ctx, const SweepWorker& w, const WriterFactory& writers,
                                          const SweepWait& wait) {
  std::map<std::size_t, std::vector<SweepSlot>> rounds;
  for (auto& s : sweep_worker_slots(w.plan, w.node)) rounds[s.round].push_back(std::move(s));
  const double half = w.plan.seconds_per_test;
  std::vector<SweepResult> out;
  for (auto& [round, slots] : rounds) {
    std::vector<Write> writes;
    for (const auto& s : slots) {
      Write x;
      x.slot = s;
      for (const auto& r : ctx.plan.rails)
        if (r.index == s.test.rail) x.rail = &r;
      auto peer = w.plan.addresses.find(s.peer);
      if (!x.rail) {
        x.skipped = w.node + " has no rail " + std::to_string(s.test.rail);
      } else if (peer == w.plan.addresses.end() || static_cast<std::size_t>(s.test.rail) >= peer->second.size() ||
                 peer->second[static_cast<std::size_t>(s.test.rail)].empty()) {
        x.skipped = "the plan gives " + s.peer + " no address on rail " + std::to_string(s.test.rail);
      } else {
        x.peer_address = peer->second[static_cast<std::size_t>(s.test.rail)];
        x.end = rail_end(ctx, *x.rail);
        x.skipped = x.end.failed;
      }
      writes.push_back(std::move(x));
    }
    // The counters span the whole round: the node's own write and its peer's into it.
    wait(at(w, static_cast<double>(round) * 2 * half));
    for (auto& x : writes)
      if (x.skipped.empty()) x.before = sample_rail(ctx, *x.rail, x.end);
    wait(at(w, slots.front().offset_s));
    // Every rail of the pair at once, each its own NIC; each write may take its half of the
    // round and no more.
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(half));
    std::vector<std::future<void>> running;
    for (auto& x : writes) {
      if (!x.skipped.empty()) continue;
      running.push_back(std::async(std::launch::async, [&x, &w, &ctx, &writers, deadline] {
        ProbeTarget target;
        target.peer = *parse_ipv4(x.peer_address);
        target.port = static_cast<std::uint16_t>(w.plan.port);
        target.bytes = static_cast<std::uint32_t>(ctx.plan.probe.bytes);
        write_until(writers, x.end, *x.rail, target, deadline, w.retry_pause, x.run);
      }));
    }
    for (auto& f : running) f.get();
    wait(at(w, static_cast<double>(round + 1) * 2 * half));
    for (auto& x : writes) {
      if (x.skipped.empty() && x.run.completed())
        judge_rail(x.end, *x.rail, x.before, sample_rail(ctx, *x.rail, x.end), x.run);
      out.push_back(result_of(x, w.node));
    }
  }
  return out;
}

}  // namespace railyard::checks
