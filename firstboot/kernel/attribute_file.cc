#include "kernel/attribute_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "kernel/root_files.h"

namespace railyard {

Outcome<std::string> read_attribute(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Outcome<std::string>::from_errno(errno, "read " + path);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = Status::from_errno(errno, "read " + path);
      ::close(fd);
      return Outcome<std::string>::fail(s);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  return Outcome<std::string>(out);
}

Status write_attribute(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::from_errno(errno, "write " + path);
  ssize_t n = ::write(fd, value.data(), value.size());
  Status s = n < 0 ? Status::from_errno(errno, "write " + path + " = " + value) : success();
  ::close(fd);
  return s;
}

Outcome<std::vector<std::string>> list_names(const std::string& path) {
  std::error_code ec;
  std::vector<std::string> out;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename());
  if (ec) return Outcome<std::vector<std::string>>::from_errno(ec.value(), "list " + path);
  std::sort(out.begin(), out.end());
  return Outcome<std::vector<std::string>>(out);
}

Status write_small_file(const std::string& path, const std::string& value) {
  std::string err = write_root_file("/", path, value + "\n", 0644);
  return err.empty() ? success() : Status::fail(EIO, err);
}

}  // namespace railyard
