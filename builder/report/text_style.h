// How the report views print for people: colour only when asked (a terminal without
// NO_COLOR), durations in a unit that reads at a glance, columns padded.
#pragma once

#include <string>

namespace railyard {

class TextStyle {
 public:
  explicit TextStyle(bool colour) : colour_(colour) {}
  // True when stdout is a terminal and NO_COLOR is unset or empty (https://no-color.org).
  static bool colour_for_stdout();

  std::string bad(const std::string& s) const { return wrap("\033[1;31m", s); }
  std::string good(const std::string& s) const { return wrap("\033[1;32m", s); }
  std::string warn(const std::string& s) const { return wrap("\033[33m", s); }
  std::string dim(const std::string& s) const { return wrap("\033[2m", s); }
  std::string bold(const std::string& s) const { return wrap("\033[1m", s); }

 private:
  std::string wrap(const char* code, const std::string& s) const { return colour_ ? code + s + "\033[0m" : s; }
  bool colour_;
};

// "812 ms", "2.3 s", "1 min 12 s".
std::string duration_text(double ms);
// `s` padded with spaces to `width` (at least one space after it).
std::string pad_right(const std::string& s, std::size_t width);
std::string pad_left(const std::string& s, std::size_t width);

}  // namespace railyard
