#include "report/text_style.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace railyard {

bool TextStyle::colour_for_stdout() {
  const char* no_colour = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) == 1 && (no_colour == nullptr || *no_colour == '\0');
}

std::string duration_text(double ms) {
  char buf[48];
  if (ms < 1000) std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  else if (ms < 60000) std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  else {
    long s = std::lround(ms / 1000);
    std::snprintf(buf, sizeof buf, "%ld min %ld s", s / 60, s % 60);
  }
  return buf;
}

std::string pad_right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace railyard
