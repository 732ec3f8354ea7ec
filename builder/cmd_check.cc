// `railyard check FILE...`: every error of every file, one line each, then a summary, all on
// standard error as compilers write them; with --json, one JSON document on standard output.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "check.h"
#include "commands.h"
#include "io/log.h"
#include "subcommand.h"

namespace railyard {

namespace {

// {"ok", "files": [{"path", "kind", "ok"}], "errors": [{"file", "line", "column", "message"}]};
// line and column are null where unknown.
nlohmann::json check_json(const std::vector<CheckedFile>& results, const Diagnostics& diags) {
  nlohmann::json files = nlohmann::json::array(), errors = nlohmann::json::array();
  for (const auto& r : results) files.push_back({{"path", r.path}, {"kind", to_string(r.kind)}, {"ok", r.ok}});
  for (const auto& d : diags.sorted())
    errors.push_back({{"file", d.pos.file},
                      {"line", d.pos.line ? nlohmann::json(d.pos.line) : nlohmann::json()},
                      {"column", d.pos.column ? nlohmann::json(d.pos.column) : nlohmann::json()},
                      {"message", d.message}});
  return {{"ok", diags.empty()}, {"files", files}, {"errors", errors}};
}

int run_check(const FileSource& files, const std::vector<std::string>& paths, const CommonOptions& common, bool json) {
  Diagnostics diags;
  auto results = check_files(files, paths, common.recipe_options(), diags);
  if (json) {
    std::cout << check_json(results, diags).dump(2) << "\n";
    return diags.empty() ? kExitOk : kExitFailed;
  }
  for (const auto& d : diags.sorted()) logging::located(format(d));
  std::size_t bad = 0;
  for (const auto& r : results) {
    if (!r.ok) ++bad;
    else logging::located(r.path + ": ok (" + to_string(r.kind) + ")", false);
  }
  if (!diags.empty())
    logging::located(std::to_string(diags.size()) + " error(s) in " + std::to_string(bad) + " of " +
                         std::to_string(results.size()) + " file(s)",
                     false);
  return diags.empty() ? kExitOk : kExitFailed;
}

const bool check_registered = register_subcommand(10, [](CLI::App& app) {
  struct Options {
    std::vector<std::string> paths;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("check", "Validate recipes, driver manifests and node inventories (-q: errors only)");
  sub->add_option("files", opt->paths, "Files to check (default: the embedded default recipe)");
  sub->add_flag("--json", opt->json, "One JSON document on stdout: every file and every error");
  return Subcommand{sub, [opt](const CommandContext& ctx) {
                      std::vector<std::string> paths = opt->paths;
                      if (paths.empty()) paths.push_back(kEmbeddedRecipePath);
                      return run_check(ctx.files, paths, ctx.common, opt->json);
                    }};
});

}  // namespace

}  // namespace railyard
