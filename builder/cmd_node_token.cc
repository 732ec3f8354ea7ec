// `railyard node-token --node-secret FILE HOSTNAME`: prints the bearer token with which the
// node HOSTNAME posts its report to `railyard collect --node-secret FILE` (collect/node_token.h).
// Exit 0 printed, 2 bad input.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "collect/node_token.h"
#include "commands.h"
#include "net.h"
#include "subcommand.h"

namespace railyard {

namespace {

struct NodeTokenArgs {
  std::string node_secret;
  std::string hostname;
};

int run_node_token(const NodeTokenArgs& args) {
  if (auto bad = check_hostname(args.hostname)) {
    spdlog::error("'{}' is not a host name: {}", args.hostname, *bad);
    return kExitBadInput;
  }
  auto secret = read_node_secret(args.node_secret);
  if (!secret.ok()) {
    spdlog::error("--node-secret {}", secret.error());
    return kExitBadInput;
  }
  std::cout << node_token(*secret, args.hostname) << "\n";
  return kExitOk;
}

const bool node_token_registered = register_subcommand(75, [](CLI::App& app) {
  auto args = std::make_shared<NodeTokenArgs>();
  auto* sub =
      app.add_subcommand("node-token", "Print the report token of one node, derived from the receiver's secret");
  sub->add_option("--node-secret", args->node_secret, "File holding the receiver's node secret")->required();
  sub->add_option("hostname", args->hostname, "The node's host name (compared without case)")->required();
  return Subcommand{sub, [args](const CommandContext&) { return run_node_token(*args); }};
});

}  // namespace

}  // namespace railyard
