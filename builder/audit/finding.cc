#include "finding.h"

#include "text.h"

namespace railyard {

namespace {

std::string escaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else if (c < 0x20 || c == 0x7f) out += "\\x" + hex(c, 2).substr(2);
    else out += static_cast<char>(c);
  }
  return out;
}

}  // namespace

std::string format_finding(const std::string& dir, const Finding& f) {
  std::string line = escaped(path_join(dir, f.artifact)) + ": ";
  if (!f.path.empty()) line += escaped(f.path) + ": ";
  line += f.problem;
  if (!f.why.empty()) line += " (" + f.why + ")";
  return line;
}

}  // namespace railyard
