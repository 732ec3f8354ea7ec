// `railyard-firstboot plan` and `run`: discover, plan, and (for run) write the rendered files.
#include <iostream>

#include "commands.h"
#include "plan.h"
#include "root_files.h"

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

int cmd_run(const InputPaths& paths, const std::string& root, bool dry_run, bool json) {
  if (!dry_run) {
    std::cerr << "railyard-firstboot run: applying the plan to the kernel is not available in this build; "
                 "use --dry-run to render the plan's files under --root\n";
    return kExitBadInput;
  }
  int rc = kExitOk;
  auto in = load_inputs(paths, rc);
  if (!in) return rc;
  Plan plan = make_plan(in->inventory, in->recipe, in->node);
  if (plan.ok())
    for (const auto& f : plan.files)
      if (auto err = write_file_atomically(root, f.path, f.content, f.mode); !err.empty()) {
        std::cerr << "railyard-firstboot: " << err << "\n";
        return kExitFailed;
      }
  print(plan, json);
  return plan.ok() ? kExitOk : kExitFailed;
}

}  // namespace railyard
