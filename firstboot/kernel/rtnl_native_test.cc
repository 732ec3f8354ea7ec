// The native rtnetlink (kernel/rtnl_native.cc): what can be tested without a kernel.
#include <doctest/doctest.h>

#include "support/rtnl_rig.h"

TEST_CASE("libnl's error codes become the kernel's errno") {
  CHECK(errno_from_nl(-NLE_OPNOTSUPP) == EOPNOTSUPP);
  CHECK(errno_from_nl(NLE_OPNOTSUPP) == EOPNOTSUPP);
  CHECK(errno_from_nl(-NLE_OBJ_NOTFOUND) == ENODEV);
  CHECK(errno_from_nl(-NLE_NODEV) == ENODEV);
  CHECK(errno_from_nl(-NLE_EXIST) == EEXIST);
  CHECK(errno_from_nl(-NLE_PERM) == EPERM);
  CHECK(errno_from_nl(-NLE_INVAL) == EINVAL);
  CHECK(errno_from_nl(-NLE_FAILURE) == EIO);
  CHECK(errno_from_nl(-NLE_MSG_TRUNC) == EIO);
  CHECK(errno_from_nl(0) == 0);
}
