// `railyard collect --listen ADDR:PORT --dir DIR`: receives the agents' reports (POST
// /api/v1/reports) and keeps one file per node and boot for `railyard report`. Prints
// exactly one line on stdout once it listens (`railyard collect: listening on ADDR:PORT`)
// so that scripts can wait for it; logs requests on stderr; SIGTERM or SIGINT stop it.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "io/log.h"
#include "io/secret_file.h"
#include "node_inventory.h"
#include "toml_file.h"
#include "collect/collect_server.h"
#include "collect/node_token.h"
#include "collect/report_store.h"
#include "report/report_source.h"
#include "subcommand.h"

namespace railyard {

namespace {

struct CollectArgs {
  std::string listen;
  std::string dir;
  std::string token_file;
  std::string node_secret;
  std::size_t max_body = 8u << 20;
  std::size_t max_buffered = 64u << 20;
  std::size_t keep_boots = 50;
  std::uint64_t max_store_bytes = 16ull << 30;
  std::string nodes;  // an inventory: only its nodes' reports are stored
};

int run_collect(const FileSource& files, const CollectArgs& args) {
  auto address = parse_listen_address(args.listen);
  if (!address.ok()) {
    spdlog::error("--listen {}", address.error());
    return kExitBadInput;
  }
  CollectOptions opt;
  opt.host = address->first;
  opt.port = address->second;
  opt.dir = args.dir;
  opt.max_body = args.max_body;
  opt.max_buffered = std::max(args.max_buffered, args.max_body);
  opt.limits.keep_boots = args.keep_boots;
  opt.limits.max_bytes = args.max_store_bytes;
  if (!args.nodes.empty()) {
    Diagnostics diags;
    auto table = read_toml(files, args.nodes, diags);
    std::optional<LoadedInventory> inv;
    if (table) inv = load_node_inventory(files, args.nodes, *table, diags);
    if (!diags.empty() || !inv) {
      for (const auto& d : diags.sorted()) logging::located(format(d));
      return kExitBadInput;
    }
    auto known = std::make_shared<std::set<std::string>>();
    for (const auto& n : inv->inventory.nodes) {
      std::string name = n.hostname;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      known->insert(name);
    }
    opt.limits.known = [known](const std::string& node) { return known->count(node) > 0; };
  }
  if (!args.token_file.empty()) {
    auto token = read_text_file(args.token_file);
    if (!token.ok()) {
      spdlog::error("--token-file {}", token.error());
      return kExitBadInput;
    }
    opt.token = *token;
    if (auto why = readable_by_others(args.token_file)) spdlog::warn("--token-file: {}", *why);
    while (!opt.token.empty() && std::isspace(static_cast<unsigned char>(opt.token.back()))) opt.token.pop_back();
    if (opt.token.empty() || opt.token.find_first_of(" \t\r\n") != std::string::npos) {
      spdlog::error("--token-file {}: the token must be one non-empty word (the bearer token the agents send)",
                    args.token_file);
      return kExitBadInput;
    }
  }
  if (!args.node_secret.empty()) {
    auto secret = read_node_secret(args.node_secret);
    if (!secret.ok()) {
      spdlog::error("--node-secret {}", secret.error());
      return kExitBadInput;
    }
    opt.node_secret = *secret;
    if (auto why = readable_by_others(args.node_secret)) spdlog::warn("--node-secret: {}", *why);
  }
  std::error_code ec;
  std::filesystem::create_directories(args.dir, ec);
  if (ec || !std::filesystem::is_directory(args.dir)) {
    spdlog::error("--dir {}: {}", args.dir, (ec ? ec.message() : "not a directory"));
    return kExitBadInput;
  }
  opt.log = [](const std::string& line) { spdlog::info("{}", line); };
  if (int removed = remove_leftover_temporaries(args.dir))
    opt.log("removed " + std::to_string(removed) + " temporary file(s) an earlier receiver left unfinished");

  // The signals are taken by one thread (sigwait), never by a handler: every thread the
  // server starts inherits the mask set here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  CollectServer server(opt);
  auto port = server.bind();
  if (!port.ok()) {
    spdlog::error("{}", port.error());
    return kExitFailed;
  }
  std::string shown = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::cout << "railyard collect: listening on " << shown << ":" << *port << std::endl;

  std::atomic<int> signal_taken{0};
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (done) return;
    signal_taken = sig;
    // A signal may come before the server's loop runs; stop it once it does.
    while (!done && !server.running()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!done) server.stop();
  });
  bool served = server.serve();
  done = true;
  if (signal_taken == 0) pthread_kill(waiter.native_handle(), SIGTERM);  // serving ended on its own: wake the waiter
  waiter.join();
  if (!served && signal_taken == 0) {
    spdlog::error("the server stopped unexpectedly");
    return kExitFailed;
  }
  spdlog::info("stopped ({})", (signal_taken == SIGINT ? "SIGINT" : "SIGTERM"));
  return kExitOk;
}

const bool collect_registered = register_subcommand(70, [](CLI::App& app) {
  auto args = std::make_shared<CollectArgs>();
  auto* sub =
      app.add_subcommand("collect", "Receive the agents' reports over HTTP and keep one file per node and boot");
  sub->add_option("--listen", args->listen, "ADDRESS:PORT to listen on (port 0: any free port)")->required();
  sub->add_option("--dir", args->dir, "Directory that receives DIR/<node>/<boot>.json")->required();
  sub->add_option("--token-file", args->token_file, "File holding a fleet-wide bearer token agents may send");
  sub->add_option("--node-secret", args->node_secret,
                  "File holding the secret each node's own token is derived from (railyard node-token)");
  sub->add_option("--max-body", args->max_body, "Largest report accepted, in bytes")
      ->default_val(8u << 20)
      ->check(CLI::PositiveNumber);
  sub->add_option(
         "--max-buffered", args->max_buffered,
         "Bytes of report bodies held for all requests at once; past it 503 with Retry-After (at least --max-body)")
      ->default_val(64u << 20)
      ->check(CLI::PositiveNumber);
  sub->add_option("--keep-boots", args->keep_boots, "Reports kept per node, the newest (0: all)")->default_val(50);
  sub->add_option("--max-store-bytes", args->max_store_bytes,
                  "Bytes of reports DIR may hold; past it 507 (0: no bound)")
      ->default_val(16ull << 30);
  sub->add_option("--nodes", args->nodes,
                  "Node inventory: store only the reports of the nodes it names (403 for others)");
  return Subcommand{sub, [args](const CommandContext& ctx) { return run_collect(ctx.files, *args); }};
});

}  // namespace

}  // namespace railyard
