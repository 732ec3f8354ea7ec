#include "file_lock.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace railyard {

Outcome<std::optional<FileLock>> FileLock::try_lock(const std::string& path, Mode mode) {
  using Result = Outcome<std::optional<FileLock>>;
  struct stat st {};
  bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  int fd = dir ? ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
               : ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Result::fail(path + ": " + std::strerror(errno));
  if (::flock(fd, (mode == Mode::shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return std::optional<FileLock>();
    return Result::fail(path + ": lock: " + std::strerror(err));
  }
  return std::optional<FileLock>(FileLock(fd));
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace railyard
