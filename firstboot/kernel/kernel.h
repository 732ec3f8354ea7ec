// Every kernel effect the agent has, as narrow interfaces. Each has a native
// implementation, a dry-run one (reads through, records writes instead of making them)
// and in-memory fakes for tests. Appliers read current state, change only the difference.
#pragma once

#include "kernel/dcb.h"
#include "kernel/ethtool.h"
#include "kernel/host.h"
#include "kernel/rtnl.h"

namespace railyard {

struct Kernel {
  Rtnl& rtnl;
  Dcb& dcb;
  Ethtool& ethtool;
  Host host;
};

}  // namespace railyard
