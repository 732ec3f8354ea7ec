#include "io/log.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace railyard::logging {

namespace {

// syslog(3)'s priorities, which the journal reads from a "<N>" at the start of a line.
char priority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return '2';
    case spdlog::level::err: return '3';
    case spdlog::level::warn: return '4';
    case spdlog::level::info: return '6';
    default: return '7';
  }
}

std::string_view label(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::warn: return "warning: ";
    case spdlog::level::debug:
    case spdlog::level::trace: return "debug: ";
    default: return "";
  }
}

// "name: label: text", each line of a multi-line message with the priority when the stream
// is the journal (the journal takes every line as an entry of its own).
class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(bool journal) : journal_(journal) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    std::string_view name(msg.logger_name.data(), msg.logger_name.size());
    std::size_t pos = 0;
    bool first = true;
    do {
      std::size_t end = text.find('\n', pos);
      std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
      if (journal_) {
        const char prefix[] = {'<', priority(msg.level), '>'};
        dest.append(prefix, prefix + 3);
      }
      if (first && !name.empty()) {
        dest.append(name.data(), name.data() + name.size());
        dest.push_back(':');
        dest.push_back(' ');
      }
      if (first) {
        std::string_view l = label(msg.level);
        dest.append(l.data(), l.data() + l.size());
      }
      dest.append(line.data(), line.data() + line.size());
      dest.push_back('\n');
      first = false;
      pos = end == std::string_view::npos ? end : end + 1;
    } while (pos != std::string_view::npos && pos < text.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<LineFormatter>(journal_); }

 private:
  bool journal_;
};

spdlog::level::level_enum level_of(Verbosity v) {
  switch (v) {
    case Verbosity::quiet: return spdlog::level::err;
    case Verbosity::verbose: return spdlog::level::debug;
    default: return spdlog::level::info;
  }
}

struct State {
  spdlog::sink_ptr sink;
  std::shared_ptr<spdlog::logger> located;  // no name: the line names its own place
  spdlog::level::level_enum level = spdlog::level::info;
};

State& state() {
  static State s;
  return s;
}

std::shared_ptr<spdlog::logger> make_logger(std::string_view name) {
  auto logger = std::make_shared<spdlog::logger>(std::string(name), state().sink);
  logger->set_level(state().level);
  logger->flush_on(spdlog::level::trace);  // in order with standard output, line by line
  return logger;
}

}  // namespace

bool is_journal(int fd) {
  const char* e = std::getenv("JOURNAL_STREAM");
  if (!e || !*e) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(e, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

bool stderr_is_journal() { return is_journal(STDERR_FILENO); }

void setup(std::string_view name, Verbosity verbosity) {
  // Standard output into the journal goes line by line, as to a terminal: the journal stamps
  // each line when it arrives, and a buffer flushed at exit would give a whole run's lines
  // the moment it ended (and leave the console silent until then).
  if (is_journal(STDOUT_FILENO)) std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  State& s = state();
  s.sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  s.sink->set_formatter(std::make_unique<LineFormatter>(stderr_is_journal()));
  s.level = level_of(verbosity);
  s.located = make_logger("");
  spdlog::set_default_logger(make_logger(name));
}

void rename(std::string_view name) {
  if (!state().sink) setup(name);
  else spdlog::set_default_logger(make_logger(name));
}

void set_verbosity(Verbosity verbosity) {
  State& s = state();
  if (!s.sink) setup("", verbosity);
  s.level = level_of(verbosity);
  spdlog::default_logger()->set_level(s.level);
  s.located->set_level(s.level);
}

void located(const std::string& line, bool error) {
  if (!state().sink) setup("");
  state().located->log(error ? spdlog::level::err : spdlog::level::info, line);
}

}  // namespace railyard::logging
