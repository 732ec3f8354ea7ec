// Test helpers: diagnostics as strings that make a failed CHECK show every error.
#pragma once

#include <string>

#include "diagnostic.h"

namespace railyard::test {

// "FILE:LINE:COL" of a diagnostic.
inline std::string where(const Diagnostic& d) {
  return d.pos.file + ":" + std::to_string(d.pos.line) + ":" + std::to_string(d.pos.column);
}

// Every error, one per line ("" when none).
inline std::string all(const Diagnostics& d) {
  std::string out;
  for (const auto& x : d.sorted()) out += format(x) + "\n";
  return out;
}

// "FILE:LINE:COL" of the only error when there is exactly one and it mentions `part`;
// otherwise all errors, so that a failed CHECK shows them.
inline std::string one(const Diagnostics& d, const std::string& part) {
  if (d.size() == 1 && d.items()[0].message.find(part) != std::string::npos) return where(d.items()[0]);
  return "expected one error mentioning \"" + part + "\", got:\n" + all(d);
}

// "FILE:LINE:COL" of the first error mentioning `part`, among others.
inline std::string at(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items())
    if (x.message.find(part) != std::string::npos) return where(x);
  return "no error mentions \"" + part + "\"; got:\n" + all(d);
}

}  // namespace railyard::test
