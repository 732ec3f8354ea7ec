// flock(2) held for an object's lifetime. The kernel drops it when the process dies, which
// is exactly what tells a later build that a half-written cache entry was abandoned.
#pragma once

#include <optional>
#include <string>

#include "outcome.h"

namespace railyard {

class FileLock {
 public:
  enum class Mode { shared, exclusive };
  // Opens (creating a file when `path` does not exist) and locks without waiting: nothing
  // when another process holds a conflicting lock. Works on directories too.
  static Outcome<std::optional<FileLock>> try_lock(const std::string& path, Mode mode);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace railyard
