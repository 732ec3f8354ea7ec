// ACS on the PCIe switch ports between a GPU and its NIC, in PCI config space.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"
#include "kernel/kernel.h"
#include "plan.h"
#include "objects/verify_context.h"

namespace railyard {

void apply_acs(const Plan&, Kernel&, std::vector<Change>&);

// gpudirect.acs.BDF: the port's ACS control register clear.
void verify_acs(const VerifyContext& ctx, const std::string& bdf, CheckResult& r);

}  // namespace railyard
