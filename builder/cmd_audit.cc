// `railyard audit DIR`: one line per finding, `DIR/ARTIFACT: PATH: problem (why)`, or with
// --json one document. Exit 0 clean, 1 findings, 2 bad input (no image directory, no valid
// manifest.json).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "audit/image_audit.h"
#include "text.h"
#include "subcommand.h"

namespace railyard {

namespace {

// {"dir", "clean", "artifacts", "entries", "findings": [{"artifact", "path", "problem", "why"}],
// "lab_stand_ins": [{"name", "version", "emulates", "files"}], "join_units": [unit names
// checked for the join gate]}; path is null for a finding on
// the artifact itself, why null when the problem says it all.
nlohmann::json audit_json(const std::string& dir, const AuditResult& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"artifact", f.artifact},
                        {"path", f.path.empty() ? nlohmann::json() : nlohmann::json(f.path)},
                        {"problem", f.problem},
                        {"why", f.why.empty() ? nlohmann::json() : nlohmann::json(f.why)}});
  nlohmann::json lab = nlohmann::json::array();
  for (const auto& l : r.lab_stand_ins)
    lab.push_back({{"name", l.name}, {"version", l.version}, {"emulates", l.emulates}, {"files", l.files}});
  return {{"dir", dir},           {"clean", r.findings.empty()}, {"artifacts", r.artifacts},  {"entries", r.entries},
          {"findings", findings}, {"lab_stand_ins", lab},        {"join_units", r.join_units}};
}

int run_audit(const std::string& dir, bool json) {
  auto result = audit_image(dir);
  if (!result.ok()) {
    spdlog::error("{}", result.error());
    return kExitBadInput;
  }
  if (json) {
    std::cout << audit_json(dir, *result).dump(2) << "\n";
    return result->findings.empty() ? kExitOk : kExitFailed;
  }
  for (const auto& f : result->findings) std::cout << format_finding(dir, f) << "\n";
  // Not a finding (a lab image is what its recipe asked for), but never to be missed.
  for (const auto& l : result->lab_stand_ins)
    spdlog::warn(
        "{}: carries the lab stand-in {} {} (emulates {} in software{}): an image for the QEMU lab, not for "
        "hardware",
        dir, l.name, l.version, join(l.emulates, ", "), l.files.empty() ? "" : "; " + join(l.files, ", "));
  std::string summary =
      std::to_string(result->artifacts) + " artifacts, " + std::to_string(result->entries) + " root filesystem entries";
  if (!result->join_units.empty())
    summary += ", join unit" + std::string(result->join_units.size() == 1 ? " " : "s ") +
               join(result->join_units, ", ") + " checked for the gate";
  if (result->findings.empty()) {
    spdlog::info("{}: clean ({})", dir, summary);
    return kExitOk;
  }
  spdlog::error("{}: {} finding(s) ({})", dir, result->findings.size(), summary);
  return kExitFailed;
}

const bool audit_registered = register_subcommand(60, [](CLI::App& app) {
  struct Options {
    std::string dir;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("audit", "Check an image directory: artifact digests and root filesystem hygiene");
  sub->add_option("dir", opt->dir, "Image directory (holding manifest.json)")->required();
  sub->add_flag("--json", opt->json, "One JSON document on stdout: the counts and every finding");
  return Subcommand{sub, [opt](const CommandContext&) { return run_audit(opt->dir, opt->json); }};
});

}  // namespace

}  // namespace railyard
