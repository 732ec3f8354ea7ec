// ICMP echo: only the tenant network's isolation probe needs it.
#pragma once

#include <string>

#include "outcome.h"

namespace railyard {

class Icmp {
 public:
  virtual ~Icmp() = default;
  // One echo from the local address `from` to `to`: whether a reply came within `timeout_ms`.
  virtual Outcome<bool> echo(const std::string& from, const std::string& to, int timeout_ms) = 0;
};

}  // namespace railyard
