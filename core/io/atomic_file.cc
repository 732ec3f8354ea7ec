#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace railyard {

Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::fail(path + ": create " + dir.string() + ": " + ec.message());
  std::string tmp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Status::fail(path + ": create a temporary file in " + dir.string() + ": " + std::strerror(errno));
  auto give_up = [&](const std::string& what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status::fail(path + ": " + what + ": " + std::strerror(err));
  };
  for (std::size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return give_up("write");
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return give_up("chmod");
  if (::fsync(fd) != 0) return give_up("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::fail(path + ": close: " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::fail(path + ": rename into place: " + std::strerror(err));
  }
  return success();
}

}  // namespace railyard

namespace railyard {

Status replace_directory(const std::string& tmp, const std::string& dir, std::vector<std::string>& notes) {
  if (::rename(tmp.c_str(), dir.c_str()) == 0) return success();
  if (errno != EEXIST && errno != ENOTEMPTY) return Status::fail(dir + ": " + std::strerror(errno));
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0)
    return Status::fail(dir + ": cannot exchange with the new one: " + std::strerror(errno));
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);  // now the old one
  if (ec) notes.push_back(tmp + ": the previous " + dir + " is here and could not be removed: " + ec.message());
  return success();
}

}  // namespace railyard
