#include "kernel/status.h"

#include <cstring>

namespace railyard {

Status Status::from_errno(int err, const std::string& what) { return {err, what + ": " + std::strerror(err)}; }

}  // namespace railyard
