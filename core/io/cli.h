// What both programs' command lines share: --verbose and --quiet, the name of the command
// chosen (which every diagnostic line starts with), and parse errors said the same way as
// every other diagnostic.
#pragma once

#include <string>

#include "io/log.h"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace railyard {

// -v/--verbose and -q/--quiet on the top-level app; they may follow the subcommand.
void add_verbosity_flags(CLI::App& app, logging::Verbosity& verbosity);

// The program and the commands chosen so far: "railyard report show".
std::string command_path(const CLI::App& app);

// After CLI::App::parse threw: --help and --version printed as CLI11 prints them (returns 0);
// anything else one diagnostic line naming the command, and, where a command was wanted,
// the commands there are (returns `bad_input`).
int parse_failure(const CLI::App& app, const CLI::ParseError& e, int bad_input);

}  // namespace railyard
