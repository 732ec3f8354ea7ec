// `railyard audit DIR`: one line per finding, `DIR/ARTIFACT: PATH: problem (why)`. Exit 0
// clean, 1 findings, 2 bad input (no image directory, no valid manifest.json).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "audit/image_audit.h"
#include "subcommand.h"

namespace railyard {

namespace {

int run_audit(const std::string& dir) {
  auto result = audit_image(dir);
  if (!result.ok()) {
    std::cerr << "railyard audit: " << result.error() << "\n";
    return kExitBadInput;
  }
  for (const auto& f : result->findings) std::cout << format_finding(dir, f) << "\n";
  std::string summary = std::to_string(result->artifacts) + " artifacts, " + std::to_string(result->entries) +
                        " root filesystem entries";
  if (result->findings.empty()) {
    std::cerr << dir << ": clean (" << summary << ")\n";
    return kExitOk;
  }
  std::cerr << dir << ": " << result->findings.size() << " finding(s) (" << summary << ")\n";
  return kExitFailed;
}

const bool registered = register_subcommand(60, [](CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("audit", "Check an image directory: artifact digests and root filesystem hygiene");
  sub->add_option("dir", *dir, "Image directory (holding manifest.json)")->required();
  return Subcommand{sub, [dir](const CommandContext&) { return run_audit(*dir); }};
});

}  // namespace

}  // namespace railyard
