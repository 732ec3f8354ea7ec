// One logger for both programs: every diagnostic goes through spdlog's default logger to
// standard error, one convention for every line:
//
//   railyard report show: reports/n01.json: No such file or directory
//   railyard build: warning: the cache lies on a file system without overlay mounts
//   <3>railyard-firstboot: rail.0.pfc: fail: expected pfc_en 0x08, observed 0x00
//
// The logger's name is the program and, in the host CLI, the command chosen
// ("railyard report show"). Warnings say so; errors and information do not, as Unix tools
// write them. When standard error is the journal (systemd sets JOURNAL_STREAM to its device
// and inode), every line starts with its syslog priority, `<3>` for errors to `<7>` for
// debug, so that `journalctl -p err` shows exactly the failures.
//
// What a command prints as its result (tables, JSON, the agent's summary and result line)
// is not a diagnostic: it goes to standard output, untouched.
//
//   railyard::logging::setup("railyard-firstboot");
//   spdlog::error("{}: {}", path, why);
#pragma once

#include <string>
#include <string_view>

namespace railyard::logging {

enum class Verbosity {
  quiet,    // errors only
  normal,   // errors, warnings, information
  verbose,  // and debug: what was run, read and waited for
};

// The default logger, named `name`, at `verbosity`. Call it once, before anything logs; tests
// may call it again.
void setup(std::string_view name, Verbosity verbosity = Verbosity::normal);

// Renames the default logger (the command chosen after parsing): its lines start with `name`.
void rename(std::string_view name);

void set_verbosity(Verbosity verbosity);

// A diagnostic that names its own place, as compilers print them ("file:3:7: error: …"):
// no program name before it, the journal's priority still; `error` false logs information.
void located(const std::string& line, bool error = true);

// True when `fd` (standard error: stderr_is_journal) is the stream JOURNAL_STREAM names,
// as systemd sets it for a unit's standard output and error. setup() makes standard output
// line-buffered when it is.
bool is_journal(int fd);
bool stderr_is_journal();

}  // namespace railyard::logging
