// Every kernel effect the agent has, as narrow interfaces. Each has a native
// implementation, a dry-run one (reads through, records writes instead of making them)
// and in-memory fakes for tests. Appliers read current state, change only the difference.
#pragma once

#include "dcb.h"
#include "ethtool.h"
#include "host.h"
#include "rtnl.h"

namespace railyard {

struct Kernel {
  Rtnl& rtnl;
  Dcb& dcb;
  Ethtool& ethtool;
  Host& host;
};

}  // namespace railyard
