// One problem `railyard audit` found in an image directory, and the line it prints for it:
// `DIR/ARTIFACT: PATH: problem (why)`.
#pragma once

#include <string>

namespace railyard {

struct Finding {
  std::string artifact;  // relative to the image directory
  std::string path;      // inside the root filesystem ("/etc/machine-id"); "" for the artifact itself
  std::string problem;
  std::string why;  // "" when the problem says it all
};

// Control characters in names are escaped (\n, \x01), so that no file name can forge a line.
std::string format_finding(const std::string& dir, const Finding& f);

}  // namespace railyard
