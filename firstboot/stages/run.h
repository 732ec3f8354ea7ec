// `railyard-firstboot run` as stages: discover, plan, apply, routing, storage, settle, gpu,
// verify, report, join. What one stage leaves for the next is in RunContext; the stages
// themselves are in run.cc, in one list.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "discover/inputs.h"
#include "gpu/nccl.h"
#include "gpu/nvml.h"
#include "join/join.h"
#include "objects/change.h"
#include "objects/routing.h"
#include "plan.h"
#include "report.h"
#include "stages/stage.h"

namespace railyard {

class LldpListener;
struct NativeKernel;  // run.cc: the kernel's native interfaces, opened by the apply stage

struct RunContext {
  RunContext(InputPaths paths, std::string root, bool preview);
  ~RunContext();
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  // Given
  InputPaths paths;
  std::string root;  // prefix of every file written
  bool preview;      // --dry-run: no modules loaded while the devices are waited for

  // Filled as the stages run
  Report report;
  int exit_code = kExitOk;               // discover: what bad input exits with
  std::optional<Inputs> in;              // discover
  std::vector<Change> preloaded;         // discover: modules loaded while waiting for devices
  Plan plan;                             // plan
  std::unique_ptr<LldpListener> lldp;    // apply: listening from then on
  std::unique_ptr<NativeKernel> kernel;  // apply
  std::vector<Change> changes;           // apply, routing, storage, settle
  std::optional<BgpBringUp> bgp;         // routing
  Inventory now;                         // settle: the node after apply
  std::optional<NvmlReading> nvml;       // gpu
  std::optional<NcclRun> nccl;           // gpu
  JoinOutcome joined;                    // report, join
};

// First boot, every stage in order.
std::span<const Stage> first_boot_stages();
// A preview (--dry-run): discover and plan only.
std::span<const Stage> preview_stages();

// The plan's files (a preview's too) written under `root`.
Status write_plan_files(const Plan& plan, const std::string& root);

// The changes that were not "unchanged", one per line, then how many were.
void print_changes(const std::vector<Change>& changes);

}  // namespace railyard
