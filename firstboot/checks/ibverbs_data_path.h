// The RDMA WRITE test over libibverbs: RC queue pairs, RoCE v2 GIDs, bytes compared.
#pragma once

#include "verify/verify.h"

namespace railyard {

class IbverbsDataPath : public RdmaDataPath {
 public:
  Outcome<double> write_test(const std::string& from_dev, int from_gid, const std::string& to_dev, int to_gid,
                              std::size_t bytes, int timeout_ms) override;
};

}  // namespace railyard
