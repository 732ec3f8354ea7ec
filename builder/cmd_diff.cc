// `railyard diff OLD/manifest.json NEW/manifest.json [--json]`: what changed between two
// images. Exit 0 whether or not they differ; 2 when either manifest is unreadable or invalid.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include <spdlog/spdlog.h>

#include "diff/manifest_diff.h"
#include "subcommand.h"

namespace railyard {

namespace {

struct DiffOptions {
  std::string old_path, new_path;
  bool json = false;
};

int run_diff(const DiffOptions& opt) {
  auto old_m = read_image_manifest(opt.old_path);
  auto new_m = read_image_manifest(opt.new_path);
  for (const auto* m : {&old_m, &new_m})
    if (!m->ok()) spdlog::error("{}", m->error());
  if (!old_m.ok() || !new_m.ok()) return kExitBadInput;
  ManifestDiff d = diff_manifests(*old_m, *new_m);
  if (opt.json) std::cout << render_diff_json(d, opt.old_path, opt.new_path);
  else std::cout << render_diff_text(d);
  return kExitOk;
}

const bool diff_registered = register_subcommand(70, [](CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  auto* sub = app.add_subcommand("diff", "What changed between two images: packages, drivers, kernel, artifacts");
  sub->add_option("old", opt->old_path, "The older image's manifest.json")->required();
  sub->add_option("new", opt->new_path, "The newer image's manifest.json")->required();
  sub->add_flag("--json", opt->json, "Print JSON");
  return Subcommand{sub, [opt](const CommandContext&) { return run_diff(*opt); }};
});

}  // namespace

}  // namespace railyard
