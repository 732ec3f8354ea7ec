// `railyard audit DIR`: whether an image directory is what its manifest says (every
// artifact present with its sha256 and size, nothing unlisted beside them) and whether its
// root filesystem is fit to boot a fleet (rootfs_rules.h).
#pragma once

#include <string>
#include <vector>

#include "finding.h"
#include "outcome.h"

namespace railyard {

struct AuditResult {
  std::vector<Finding> findings;  // artifacts first, then the root filesystem, each sorted
  std::size_t artifacts = 0;      // listed in the manifest
  std::size_t entries = 0;        // archive entries read, all parts together
};

// Fails only on bad input: `dir` is no directory, or its manifest.json is missing or
// invalid. Whatever is wrong with the image itself is a finding.
Outcome<AuditResult> audit_image(const std::string& dir);

}  // namespace railyard
