// Applying a plan: one applier per kind of kernel object, each reading the current state,
// changing only the difference and saying what it did. A second run changes nothing.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "change.h"
#include "kernel.h"
#include "plan.h"

namespace railyard {

// Every applier has this shape. `out` receives one Change per object considered.
using Applier = void (*)(const Plan&, Kernel&, std::vector<Change>&);

void apply_modules(const Plan&, Kernel&, std::vector<Change>&);    // modules.cc
void apply_soft_roce(const Plan&, Kernel&, std::vector<Change>&);  // soft_roce.cc
void apply_links(const Plan&, Kernel&, std::vector<Change>&);      // link.cc: up, MTU
void apply_vlans(const Plan&, Kernel&, std::vector<Change>&);      // vlan.cc
void apply_addresses(const Plan&, Kernel&, std::vector<Change>&);  // address.cc
void apply_routing(const Plan&, Kernel&, std::vector<Change>&);    // routing.cc: tables and rules
void apply_sysctls(const Plan&, Kernel&, std::vector<Change>&);    // sysctl.cc
void apply_dcb_pfc(const Plan&, Kernel&, std::vector<Change>&);    // dcb_pfc.cc
void apply_dcb_app(const Plan&, Kernel&, std::vector<Change>&);    // dcb_app.cc: DSCP → priority
void apply_trust(const Plan&, Kernel&, std::vector<Change>&);      // trust.cc
void apply_ecn(const Plan&, Kernel&, std::vector<Change>&);        // ecn.cc
void apply_roce_tos(const Plan&, Kernel&, std::vector<Change>&);   // roce_tos.cc
void apply_storm(const Plan&, Kernel&, std::vector<Change>&);      // storm.cc
void apply_acs(const Plan&, Kernel&, std::vector<Change>&);        // acs.cc
void apply_nvmeof(const Plan&, Kernel&, std::vector<Change>&);     // nvmeof.cc

// How retries tell time: the real clock and sleep, or a test's.
struct RetryClock {
  std::function<std::chrono::steady_clock::time_point()> now = [] { return std::chrono::steady_clock::now(); };
  std::function<void(std::chrono::milliseconds)> sleep;  // empty: std::this_thread::sleep_for
};

// NVMe-oF connections that failed are tried again every `interval` until `wait` has passed
// on the clock (a connect to an absent host takes seconds itself): a target may still be
// starting (a rack powered on at once, a target rebooting). Each one's failed Change is
// replaced by its last outcome; a late success says after how long. Nothing is retried
// when nothing failed.
void retry_nvmeof(const Plan& plan, Kernel& kernel, std::vector<Change>& changes, std::chrono::milliseconds wait,
                  std::chrono::milliseconds interval, const RetryClock& clock = {});

// Runs every applier in dependency order. Refuses (one failed Change, nothing else done) a
// plan that would touch the management interface or that has problems.
std::vector<Change> apply_plan(const Plan& plan, Kernel& kernel);

// "rail 0 (ens1f0np0)", the prefix of every rail's Change object.
std::string rail_label(const RailPlan& rail);
// A Change from a Status: ok → `ok_outcome`; unsupported → unsupported; else failed.
Change change_from(const std::string& object, const Status& s, const std::string& before, const std::string& after,
                   Outcome ok_outcome = Outcome::changed);

}  // namespace railyard
