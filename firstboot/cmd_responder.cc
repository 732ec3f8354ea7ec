// `railyard-firstboot responder`: a reference's side of the peer probe
// (railyard-probe-responder.service, enabled by the recipe's [fabric.probe] responder). On a
// node whose identity says reference = true it serves every rail's address until SIGTERM; on
// any other node it says so and exits 0.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "responder_gids.h"
#include "discover/discover.h"
#include "join_gate.h"
#include "probe/ibverbs_slices.h"
#include "probe/responder.h"
#include "text.h"

namespace railyard {

// Each rail's address as an RDMA device's RoCE v2 GID: the responder's end of the queue
// pairs. The rails were brought up before this unit starts, but a GID follows its address by
// a moment, so the rediscovery is retried for `wait`.
std::vector<SliceRail> responder_gids(const std::vector<ResponderRail>& rails, std::chrono::seconds wait,
                                      std::vector<std::string>& missing) {
  auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    Inventory inv = discover();
    std::vector<SliceRail> out;
    missing.clear();
    for (const auto& r : rails) {
      if (auto g = roce_v2_gid_of(inv, r.address.str())) out.push_back({g->device, g->index});
      else missing.push_back("rail " + std::to_string(r.index) + " (" + r.address.str() + ")");
    }
    if (missing.empty() || std::chrono::steady_clock::now() >= until) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

namespace {

bool storage_target_role() {
  std::ifstream f("/proc/cmdline");
  std::string word;
  while (f >> word)
    if (word == "railyard.role=storage-target") return true;
  return false;
}

int cmd_responder(const InputPaths& paths, int gid_wait_s) {
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  const ProbeSpec& spec = in->recipe.probe;
  if (!in->node || !in->node->reference) {
    std::cout << "railyard: responder=idle (" << (in->node ? in->node->hostname : std::string("this node"))
              << " is no reference: reference = true in the node inventory makes one)" << std::endl;
    return kExitOk;
  }
  // A node's first boot must have passed (its rails proven) before others are proven against
  // it; the lab's storage target runs no first boot and serves once its rails are up.
  if (!storage_target_role() && !std::filesystem::exists(kJoinedMarker)) {
    std::cout << "railyard: responder=idle (" << in->node->hostname << "'s first boot has not passed: " << kJoinedMarker
              << " is missing)" << std::endl;
    return kExitOk;
  }
  std::vector<ResponderRail> rails = responder_rails(in->recipe, *in->node);
  std::vector<std::string> missing;
  std::vector<SliceRail> devices = responder_gids(rails, std::chrono::seconds(gid_wait_s), missing);
  if (!missing.empty()) {
    spdlog::error("no RoCE v2 GID carries {}: are the rails up (railyard-firstboot run)?", join(missing, ", "));
    return kExitFailed;
  }
  auto slices =
      IbverbsSlices::create(devices, static_cast<std::size_t>(spec.max_peers), static_cast<std::size_t>(spec.bytes));
  if (!slices.ok()) {
    spdlog::error("cannot register the responder's memory: {}", slices.error());
    return kExitFailed;
  }
  Responder responder(rails, static_cast<std::uint16_t>(spec.port),
                      ResponderLimits{std::chrono::milliseconds(spec.timeout_ms)}, **slices);
  if (Status s = responder.listen(); !s.ok()) {
    spdlog::error("responder: {}", s.error());
    return kExitFailed;
  }
  // SIGTERM (systemctl stop) and SIGINT end the loop through a signalfd it polls.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  int stop = ::signalfd(-1, &stop_signals, SFD_CLOEXEC);
  if (stop < 0) {
    spdlog::error("responder: signalfd: {}", std::strerror(errno));
    return kExitFailed;
  }
  std::vector<std::string> served;
  for (std::size_t i = 0; i < rails.size(); ++i)
    served.push_back("rail " + std::to_string(rails[i].index) + " " + rails[i].address.str() + " (" +
                     devices[i].rdma_device + " GID " + std::to_string(devices[i].gid_index) + ")");
  std::cout << "railyard: responder=serving port=" << spec.port << " peers=" << spec.max_peers
            << " bytes=" << spec.bytes << " rails: " << join(served, ", ") << std::endl;
  Status s = responder.serve(stop);
  ::close(stop);
  const ResponderCounts& c = responder.counts();
  spdlog::info(
      "responder stopped: {} verified, {} mismatched, {} busy, {} outsiders, {} refused, {} timed out, {} failed",
      c.verified, c.mismatched, c.busy, c.outsiders, c.refused, c.timed_out, c.failed);
  if (!s.ok()) {
    spdlog::error("responder: {}", s.error());
    return kExitFailed;
  }
  return kExitOk;
}

const bool responder_registered = AgentCommands::add(70, [](CLI::App& app) {
  auto wait = std::make_shared<int>(30);
  auto* sub = app.add_subcommand("responder",
                                 "Reference node: serve the other nodes' peer probes on every rail (until SIGTERM)");
  sub->add_option("--gid-wait", *wait, "Seconds to wait for the rail addresses' RoCE v2 GIDs (default 30)")
      ->check(CLI::Range(0, 600));
  return AgentCommands::Subcommand{sub, [wait](const AgentContext& ctx) { return cmd_responder(ctx.paths, *wait); }};
});

}  // namespace

}  // namespace railyard
