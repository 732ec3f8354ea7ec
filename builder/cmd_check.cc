// `railyard check FILE...`: every error of every file, one line each, then a summary.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "check.h"
#include "commands.h"
#include "subcommand.h"

namespace railyard {

int run_check(const FileSource& files, const std::vector<std::string>& paths, const CommonOptions& common,
              bool quiet) {
  Diagnostics diags;
  auto results = check_files(files, paths, common.recipe_options(), diags);
  for (const auto& d : diags.sorted()) std::cout << format(d) << "\n";
  std::size_t bad = 0;
  for (const auto& r : results) {
    if (!r.ok) ++bad;
    else if (!quiet) std::cerr << r.path << ": ok (" << to_string(r.kind) << ")\n";
  }
  if (!diags.empty())
    std::cerr << diags.size() << " error(s) in " << bad << " of " << results.size() << " file(s)\n";
  return diags.empty() ? kExitOk : kExitFailed;
}

namespace {

const bool registered = register_subcommand(10, [](CLI::App& app) {
  struct Options {
    std::vector<std::string> paths;
    bool quiet = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("check", "Validate recipes, driver manifests and node inventories");
  sub->add_option("files", opt->paths, "Files to check (default: the embedded default recipe)");
  sub->add_flag("-q,--quiet", opt->quiet, "Print only errors");
  return Subcommand{sub, [opt](const CommandContext& ctx) {
                      std::vector<std::string> paths = opt->paths;
                      if (paths.empty()) paths.push_back(kEmbeddedRecipePath);
                      return run_check(ctx.files, paths, ctx.common, opt->quiet);
                    }};
});

}  // namespace

}  // namespace railyard
