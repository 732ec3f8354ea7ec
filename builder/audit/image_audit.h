// `railyard audit DIR`: whether an image directory is what its manifest says (every
// artifact present with its sha256 and size, nothing unlisted beside them) and whether its
// root filesystem is fit to boot a fleet (rootfs_rules.h), its join units gated on the
// agent's pass included (join_gates.h).
#pragma once

#include <string>
#include <vector>

#include "finding.h"
#include "outcome.h"

namespace railyard {

// A driver bundle that emulates hardware in software (manifest.json drivers[].emulates):
// fine in a lab image, never on a fleet, so audit always names it.
struct LabStandIn {
  std::string name, version;
  std::vector<std::string> emulates;
  std::vector<std::string> files;  // its modules in the root filesystem
};

// The lab DCB stand-in's module file name: its presence without a bundle declaring it is a
// finding.
inline constexpr const char* kLabQosModule = "railyard_lab_qos.ko";

struct AuditResult {
  std::vector<Finding> findings;  // artifacts first, then the root filesystem, each sorted
  std::vector<LabStandIn> lab_stand_ins;
  std::vector<std::string> join_units;  // the image recipe's join.units, each checked for its gate
  std::size_t artifacts = 0;            // listed in the manifest
  std::size_t entries = 0;              // archive entries read, all parts together
};

// Fails only on bad input: `dir` is no directory, or its manifest.json is missing or
// invalid. Whatever is wrong with the image itself is a finding.
Outcome<AuditResult> audit_image(const std::string& dir);

}  // namespace railyard
