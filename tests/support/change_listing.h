// Test helper: apply's Change records as text, one a line, for CHECK messages.
#pragma once

#include <string>
#include <vector>

#include "objects/change.h"

namespace railyard::test {

// "object: outcome [before → after] (detail)" per change.
inline std::string listing(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes)
    out += c.object + ": " + to_string(c.outcome) + " [" + c.before + " → " + c.after + "]" +
           (c.detail.empty() ? "" : " (" + c.detail + ")") + "\n";
  return out;
}

}  // namespace railyard::test
