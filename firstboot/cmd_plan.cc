// `railyard-firstboot plan` and `run`: discover, plan, and (for run) write the rendered files.
#include <iostream>

#include "commands.h"
#include "plan.h"

namespace railyard {

namespace {

void print(const Plan& plan, bool json) {
  if (json) std::cout << to_json(plan).dump(2) << "\n";
  else std::cout << to_text(plan);
}

}  // namespace

int cmd_plan(const InputPaths& paths, bool json) {
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  Plan plan = make_plan(in->inventory, in->recipe, in->node);
  print(plan, json);
  return plan.ok() ? kExitOk : kExitFailed;
}

}  // namespace railyard
