// `railyard-firstboot sweep-worker`: one node's task in a fleet sweep's Slurm job
// (docs/sweep.md). It serves its rails to its peers' writes (a responder of its own, on the
// plan's port), runs its own writes round by round from the job's common start, and writes
// its one-way results to DIR/NODE.json, whole or not at all, for `railyard fabric sweep
// --analyze`. Exit 0 when every write of the node passed, 1 when one failed, 2 on bad input.
#include <sys/eventfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "checks/ibverbs_data_path.h"
#include "checks/sweep_worker.h"
#include "commands.h"
#include "io/atomic_file.h"
#include "kernel/dcb_native.h"
#include "kernel/ethtool_native.h"
#include "kernel/files_native.h"
#include "kernel/host_native.h"
#include "kernel/rtnl_native.h"
#include "plan.h"
#include "probe/ibverbs_slices.h"
#include "probe/responder.h"
#include "responder_gids.h"
#include "slurm.h"
#include "sweep.h"
#include "text.h"

namespace railyard {

namespace {

struct WorkerOptions {
  std::string plan;
  std::string node;
  long long start = 0;  // seconds since the epoch
  std::string out;
  int gid_wait_s = 30;
};

std::optional<SweepPlan> read_plan(const std::string& path) {
  NativeFiles files;
  auto text = files.read_file(path);
  if (!text.ok()) {
    spdlog::error("{}: {}", path, text.error());
    return std::nullopt;
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  std::string why;
  std::optional<SweepPlan> plan;
  if (j.is_discarded()) why = "not JSON; expected the plan railyard fabric sweep writes";
  else plan = sweep_plan_from_json(j, why);
  if (plan && (plan->port == 0 || plan->addresses.empty()))
    why = "no \"port\" or \"addresses\": a job's plan has both (railyard fabric sweep --nodes INVENTORY writes it)";
  if (!why.empty()) {
    spdlog::error("{}: {}", path, why);
    return std::nullopt;
  }
  return plan;
}

// The responder every peer writes into: this node's rails on the plan's port, until `stop` is
// written. Reference nodes keep their own railyard-probe-responder on the recipe's port.
class SweepResponder {
 public:
  Status start(const Recipe& recipe, const NodeEntry& self, int port, int gid_wait_s) {
    rails_ = responder_rails(recipe, self);
    std::vector<std::string> missing;
    auto devices = responder_gids(rails_, std::chrono::seconds(gid_wait_s), missing);
    if (!missing.empty()) return Status::fail("no RoCE v2 GID carries " + join(missing, ", "));
    auto slices = IbverbsSlices::create(devices, static_cast<std::size_t>(std::max(1, recipe.probe.max_peers)),
                                        static_cast<std::size_t>(recipe.probe.bytes));
    if (!slices.ok()) return Status::fail("cannot register the responder's memory: " + slices.error());
    slices_ = std::move(*slices);
    responder_ =
        std::make_unique<Responder>(rails_, static_cast<std::uint16_t>(port),
                                    ResponderLimits{std::chrono::milliseconds(recipe.probe.timeout_ms)}, *slices_);
    if (Status s = responder_->listen(); !s.ok()) return s;
    stop_ = ::eventfd(0, EFD_CLOEXEC);
    if (stop_ < 0) return Status::fail("eventfd failed");
    thread_ = std::thread([this] { served_ = responder_->serve(stop_); });
    return success();
  }
  // Stops serving; what it counted.
  ResponderCounts stop() {
    if (thread_.joinable()) {
      std::uint64_t one = 1;
      if (::write(stop_, &one, sizeof one) != sizeof one) spdlog::warn("cannot stop the responder");
      thread_.join();
    }
    if (stop_ >= 0) ::close(stop_);
    stop_ = -1;
    if (!served_.ok()) spdlog::error("responder: {}", served_.error());
    return responder_ ? responder_->counts() : ResponderCounts{};
  }
  ~SweepResponder() { stop(); }

 private:
  std::vector<ResponderRail> rails_;
  std::unique_ptr<IbverbsSlices> slices_;
  std::unique_ptr<Responder> responder_;
  std::thread thread_;
  int stop_ = -1;
  Status served_ = success();
};

int cmd_sweep_worker(const InputPaths& paths, const WorkerOptions& o) {
  auto plan = read_plan(o.plan);
  if (!plan) return kExitBadInput;
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  if (!in->node) {
    spdlog::error("no node identity: the worker needs this node's rail addresses (/etc/railyard/node.toml)");
    return kExitBadInput;
  }
  // The plan names nodes as Slurm does: srun gives each task its node's name.
  const char* slurm_name = std::getenv("SLURMD_NODENAME");
  const std::string node = !o.node.empty()                     ? o.node
                           : slurm_name && *slurm_name != '\0' ? std::string(slurm_name)
                                                               : in->node->hostname;
  if (auto why = check_slurm_name(node)) {
    spdlog::error("--node {}: {}", node, *why);
    return kExitBadInput;
  }
  auto slots = sweep_worker_slots(*plan, node);
  if (!plan->addresses.contains(node)) {
    spdlog::error("{}: {} is not among the plan's nodes", o.plan, node);
    return kExitBadInput;
  }
  if (Status s = write_file_atomically(o.out + "/.probe-" + node, ""); !s.ok()) {
    spdlog::error("-o {}: {}", o.out, s.error());
    return kExitBadInput;
  }
  std::filesystem::remove(o.out + "/.probe-" + node);

  Plan node_plan = make_plan(in->inventory, in->recipe, in->node);
  if (!node_plan.ok()) {
    for (const auto& p : node_plan.problems) spdlog::error("{}", p);
    return kExitBadInput;
  }
  SweepResponder responder;
  if (Status s = responder.start(in->recipe, *in->node, plan->port, o.gid_wait_s); !s.ok()) {
    spdlog::error("responder: {}", s.error());
    return kExitFailed;
  }
  const auto t0 = std::chrono::system_clock::time_point(std::chrono::seconds(o.start));
  const auto end = t0 + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                            std::chrono::duration<double>(plan->fabric_seconds()));
  std::cout << "railyard: sweep-worker node=" << node << " writes=" << slots.size() << " port=" << plan->port
            << " rounds=" << plan->rounds.size() << " ends in "
            << std::chrono::duration_cast<std::chrono::seconds>(end - std::chrono::system_clock::now()).count() << " s"
            << std::endl;

  NativeRtnl rtnl;
  NativeDcb dcb;
  NativeEthtool ethtool;
  NativeHost host("/");
  Kernel kernel{rtnl, dcb, ethtool, host};
  IbverbsDataPath rdma;
  VerifyContext ctx{node_plan, in->inventory, kernel, rdma};
  checks::SweepWorker w{*plan, node, t0};
  auto results = checks::run_sweep_writes(ctx, w, checks::ibverbs_writers(), checks::sleep_until_wall_clock());
  // Peers write into this node until the plan's last round is over.
  std::this_thread::sleep_until(end + std::chrono::seconds(1));
  ResponderCounts served = responder.stop();

  nlohmann::ordered_json j{{"schema", 1}, {"node", node}, {"results", nlohmann::ordered_json::array()}};
  std::size_t failed = 0;
  for (const auto& r : results) {
    j["results"].push_back(to_json(r));
    if (!r.ok || !r.a_counters.empty() || !r.b_counters.empty()) {
      ++failed;
      spdlog::error("rail {} to {}: {}{}", r.test.rail, r.test.a == node ? r.test.b : r.test.a,
                    r.error.empty() ? "counters moved: " : r.error, r.a_counters + r.b_counters);
    }
  }
  const std::string path = o.out + "/" + node + ".json";
  if (Status s = write_file_atomically(path, j.dump(2) + "\n"); !s.ok()) {
    spdlog::error("{}: {}", path, s.error());
    return kExitFailed;
  }
  std::cout << "railyard: sweep-worker node=" << node << " wrote " << results.size() << " result(s), " << failed
            << " failed; served " << served.verified << " verified, " << served.mismatched << " mismatched, "
            << served.busy << " busy, " << served.refused << " refused: " << path << std::endl;
  return failed == 0 ? kExitOk : kExitFailed;
}

const bool sweep_worker_registered = AgentCommands::add(75, [](CLI::App& app) {
  auto o = std::make_shared<WorkerOptions>();
  auto* sub = app.add_subcommand("sweep-worker",
                                 "A fleet sweep's task on this node: serve the peers' writes, write to each peer "
                                 "round by round, results to DIR/NODE.json (railyard fabric sweep runs it)");
  sub->add_option("--plan", o->plan, "The job's plan (railyard fabric sweep writes DIR/plan.json)")->required();
  sub->add_option("--start", o->start, "The sweep's start, seconds since the epoch, the same for every node")
      ->required()
      ->check(CLI::Range(1LL, 1LL << 40));
  sub->add_option("--node", o->node,
                  "This node's name in the plan (default: $SLURMD_NODENAME, else the node identity's host name)");
  sub->add_option("-o,--out", o->out, "Directory for NODE.json (shared with the analysis)")->required();
  sub->add_option("--gid-wait", o->gid_wait_s, "Seconds to wait for the rails' RoCE v2 GIDs (default 30)")
      ->check(CLI::Range(0, 600));
  return AgentCommands::Subcommand{sub, [o](const AgentContext& ctx) { return cmd_sweep_worker(ctx.paths, *o); }};
});

}  // namespace

}  // namespace railyard
