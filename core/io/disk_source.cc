#include "disk_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace railyard {

std::optional<std::string> DiskSource::read(const std::string& path) const {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool DiskSource::is_directory(const std::string& path) const {
  std::error_code ec;
  return std::filesystem::is_directory(path.empty() ? "." : path, ec);
}

std::string DiskSource::why_unreadable(const std::string& path) const {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::strerror(errno);
  struct stat st {};
  int rc = ::fstat(fd, &st);
  int err = errno;
  ::close(fd);
  if (rc != 0) return std::strerror(err);
  if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  return "it changed while being read";  // a regular file that opens: gone or replaced since
}

bool DiskSource::is_file(const std::string& path) const {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace railyard
