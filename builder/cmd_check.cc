// `railyard check FILE...`: every error of every file, one line each, then a summary.
#include <iostream>

#include "check.h"
#include "commands.h"

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

}  // namespace railyard
