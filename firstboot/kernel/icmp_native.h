// ICMP echo over a raw socket bound to the source address.
#pragma once

#include "kernel/icmp.h"

namespace railyard {

class NativeIcmp : public Icmp {
 public:
  Outcome<bool> echo(const std::string& from, const std::string& to, int timeout_ms) override;
};

}  // namespace railyard
