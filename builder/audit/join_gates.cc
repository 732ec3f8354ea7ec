#include "join_gates.h"

#include <algorithm>
#include <filesystem>

#include "join_gate.h"
#include "rootfs_file.h"

namespace railyard {

namespace {

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The drop-in directories' names of `unit` ("x.service.d"; an instance's template's too),
// which systemd merges from every unit directory.
std::vector<std::string> dropin_dirs(const std::string& unit) {
  std::vector<std::string> out{unit + ".d"};
  if (auto t = unit_template(unit)) out.push_back(*t + ".d");
  return out;
}

}  // namespace

bool UnitTree::in_unit_dir(const std::string& path) {
  return std::any_of(std::begin(kUnitDirs), std::end(kUnitDirs),
                     [&](const char* dir) { return path.starts_with(std::string(dir) + "/"); });
}

bool UnitTree::is_dropin(const std::string& path) {
  std::filesystem::path p(path);
  return in_unit_dir(path) && p.extension() == ".conf" && p.parent_path().extension() == ".d";
}

std::vector<Finding> audit_join_gates(const std::vector<std::string>& units, const UnitTree& tree,
                                      const std::string& artifact) {
  std::vector<Finding> out;
  for (const auto& unit : units) {
    auto paths = unit_file_paths(unit);
    auto defined =
        std::find_if(paths.begin(), paths.end(), [&](const std::string& p) { return tree.files.count(p) > 0; });
    if (defined == paths.end())
      out.push_back({artifact, kImageRecipe, "join unit " + unit + " is in no unit directory of the image",
                     "the agent could not start it after a pass: the node would never join"});
    std::string gate = join_gate_path(unit);
    auto it = tree.dropins.find(gate);
    if (it == tree.dropins.end()) {
      out.push_back({artifact, gate, "missing: join unit " + unit + " is not gated",
                     "without it " + unit +
                         " starts at boot whether or not the self-test passed; railyard build "
                         "writes it"});
      continue;
    }
    if (auto problem = join_gate_problem(it->second)) {
      out.push_back({tree.files.count(gate) ? tree.files.at(gate) : artifact, gate,
                     "does not gate " + unit + ": " + *problem,
                     unit + " would start at boot whether or not the self-test passed"});
      continue;
    }
    // systemd applies a unit's drop-ins from every directory in the order of their file names
    // (one in /etc hides a same-named one below): one after the gate may reset it.
    for (const auto& [path, text] : tree.dropins) {
      std::filesystem::path p(path);
      auto dirs = dropin_dirs(unit);
      if (std::find(dirs.begin(), dirs.end(), p.parent_path().filename().string()) == dirs.end()) continue;
      if (base_name(path) <= base_name(gate) || !resets_path_conditions(text)) continue;
      out.push_back({tree.files.count(path) ? tree.files.at(path) : artifact, path,
                     "resets ConditionPathExists= after " + base_name(gate),
                     "it undoes the join gate: " + unit + " would start whether or not the self-test passed"});
    }
  }
  return out;
}

}  // namespace railyard
