// `railyard-firstboot plan` and `run`: discover, plan, and (for run) write the rendered files.
#include <memory>
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "plan.h"

namespace railyard {

namespace {

void print(const Plan& plan, bool json) {
  if (json) std::cout << to_json(plan).dump(2) << "\n";
  else std::cout << to_text(plan);
}

int cmd_plan(const InputPaths& paths, bool json) {
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  Plan plan = make_plan(in->inventory, in->recipe, in->node);
  print(plan, json);
  return plan.ok() ? kExitOk : kExitFailed;
}

const bool plan_registered = AgentCommands::add(30, [](CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("plan", "Print what first boot would do on this node");
  sub->add_flag("--json", *json, "JSON instead of text");
  return AgentCommands::Subcommand{sub, [json](const AgentContext& ctx) { return cmd_plan(ctx.paths, *json); }};
});

}  // namespace

}  // namespace railyard
