// `railyard audit`'s check of the join gate (core/join_gate.h): every unit the image's recipe
// joins with is in the image, carries the gate's drop-in, and no drop-in applied after the
// gate resets the path conditions it sets. Pure: what the audit read of the root filesystem
// in, findings out.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "finding.h"

namespace railyard {

// What the audit keeps of the unit directories (kUnitDirs) while it reads the archives, a
// later part's entry replacing an earlier one's.
struct UnitTree {
  std::map<std::string, std::string> files;  // every path under a unit directory → the part it came from
  std::map<std::string, std::string>
      dropins;  // a drop-in's path ("/etc/systemd/system/x.service.d/10-a.conf") → its text
  // Whether `path` (absolute, normalised) is under a unit directory, and a drop-in.
  static bool in_unit_dir(const std::string& path);
  static bool is_dropin(const std::string& path);
};

// `units`: the image recipe's join.units; `artifact`: the part to name for what is missing.
std::vector<Finding> audit_join_gates(const std::vector<std::string>& units, const UnitTree& tree,
                                      const std::string& artifact);

}  // namespace railyard
