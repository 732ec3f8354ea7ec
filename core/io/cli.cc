#include "io/cli.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

namespace railyard {

namespace {

// The deepest command parsed.
const CLI::App* chosen(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().back();
  return at;
}

std::string commands_of(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + sub->get_name();
  return out;
}

}  // namespace

void add_verbosity_flags(CLI::App& app, logging::Verbosity& verbosity) {
  auto* verbose = app.add_flag_callback(
      "-v,--verbose", [&verbosity] { verbosity = logging::Verbosity::verbose; },
      "Also print what is run, read and waited for (debug messages)");
  app.add_flag_callback(
         "-q,--quiet", [&verbosity] { verbosity = logging::Verbosity::quiet; }, "Print errors only")
      ->excludes(verbose);
}

std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().back();
    path += " " + at->get_name();
  }
  return path;
}

int parse_failure(const CLI::App& app, const CLI::ParseError& e, int bad_input) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  logging::rename(command_path(app));
  const CLI::App* at = chosen(app);
  std::string help = "'" + command_path(app) + " --help' says more";
  std::string commands = commands_of(*at);
  bool wanted = e.get_name() == "ExtrasError" || std::string_view(e.what()).starts_with("A subcommand");
  if (!commands.empty() && wanted) {
    // A command was wanted here: the word given instead, if any, is the first left over.
    std::vector<std::string> left = at->remaining();
    if (left.empty()) left = app.remaining(true);
    std::string what = left.empty() || left.front().starts_with("-") ? "a command is required"
                                                                     : "unknown command '" + left.front() + "'";
    spdlog::error("{}; commands: {} ({})", what, commands, help);
  } else {
    spdlog::error("{} ({})", e.what(), help);
  }
  return bad_input;
}

}  // namespace railyard
