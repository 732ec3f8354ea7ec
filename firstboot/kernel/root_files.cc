#include "kernel/root_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace railyard {

std::string write_file_atomically(const std::string& root, const std::string& path, const std::string& content,
                                  int mode) {
  namespace fs = std::filesystem;
  fs::path target = fs::path(root.empty() ? "/" : root) / fs::path(path).relative_path();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return "create " + target.parent_path().string() + ": " + ec.message();
  std::string tmp = target.string() + ".railyard-tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return "open " + tmp + ": " + std::strerror(errno);
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = "write " + tmp + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return err;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0) {
    std::string err = "sync " + tmp + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    std::string err = "rename " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return err;
  }
  return "";
}

}  // namespace railyard
