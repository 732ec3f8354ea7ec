// The kernel's configfs (/sys/kernel/config), where the NVMe-oF target is configured: made
// of directories, attribute files and symbolic links. Every path is taken under a root, so
// that tests point it at an ordinary directory tree shaped like configfs.
#pragma once

#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

class Configfs {
 public:
  explicit Configfs(std::string root = "/") : root_(std::move(root)) {}
  virtual ~Configfs() = default;

  // An attribute's value without its trailing newline.
  Outcome<std::string> read(const std::string& path) const;
  // On configfs an attribute takes one write of the value; in an ordinary tree the file is
  // replaced whole.
  Status write(const std::string& path, const std::string& value) const;
  // mkdir: on configfs it creates the object and its attribute files. Existing is fine.
  // Virtual so that a test tree can create those children the way the kernel would.
  virtual Status make_directory(const std::string& path) const;
  Status make_link(const std::string& target, const std::string& link) const;
  bool exists(const std::string& path) const;
  Outcome<std::vector<std::string>> list(const std::string& path) const;  // sorted names

 protected:
  std::string where(const std::string& path) const;

 private:
  std::string root_;
};

}  // namespace railyard
