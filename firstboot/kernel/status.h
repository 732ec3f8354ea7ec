// The outcome of one kernel operation: ok, or the errno and what was being done.
#pragma once

#include <cerrno>
#include <string>

namespace railyard {

struct Status {
  int err = 0;  // errno-style; 0 is success
  std::string message;

  bool ok() const { return err == 0; }
  // The device or kernel lacks the feature (virtio has no DCB, upstream mlx5 no ECN files).
  // A device that does not exist (ENODEV) is a failure, not a missing feature.
  bool unsupported() const { return err == EOPNOTSUPP || err == ENOTSUP || err == ENOENT; }

  static Status success() { return {}; }
  static Status error(int err, std::string message) { return {err, std::move(message)}; }
  // `what: strerror(err)`
  static Status from_errno(int err, const std::string& what);
};

}  // namespace railyard
