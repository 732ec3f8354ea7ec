// The check evaluators, grouped by what they read; verify.cc dispatches by check name.
#pragma once

#include <string>

#include "verify.h"

namespace railyard::checks {

// A result with the plan's expectation filled in; evaluators set status, observed, detail.
CheckResult start(const PlannedCheck& c);
void pass(CheckResult& r, std::string observed, std::string detail = "");
void fail(CheckResult& r, std::string observed, std::string detail = "");
// The Status of a kernel read: unsupported where the device lacks the knob, else fail.
void from_status(CheckResult& r, const Status& s);

// hardware.cc: GPUs, PCIe links, rails, NIC link and speed, RDMA ports and GIDs, NVMe-oF,
// nvidia-peermem, ACS.
bool hardware(const VerifyContext& ctx, CheckResult& r);
// network.cc: MTU, VLAN, addresses, default routes.
bool network(const VerifyContext& ctx, CheckResult& r);
// fabric.cc: PFC, trust, DSCP map, ECN, RoCE ToS, storm prevention, pause counters.
bool fabric(const VerifyContext& ctx, CheckResult& r);
// data_path.cc: RDMA WRITE per rail and between rails.
bool data_path(const VerifyContext& ctx, CheckResult& r);

// "rail.3.mtu" → the plan's rail 3 and "mtu"; nothing when not a rail check.
struct RailCheck {
  const RailPlan* rail = nullptr;
  std::string what;
};
RailCheck rail_check(const Plan& plan, const std::string& name);

}  // namespace railyard::checks
