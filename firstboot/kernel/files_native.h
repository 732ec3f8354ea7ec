// The node's files: kernel attributes read and written in place, ordinary files under a root.
#pragma once

#include <string>

#include "kernel/files.h"

namespace railyard {

class NativeFiles : public Files {
 public:
  // Files outside /proc, /sys and /dev are written under `root` (the agent's --root).
  explicit NativeFiles(std::string root = "/") : root_(std::move(root)) {}
  Outcome<std::string> read_file(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& value) override;
  Status make_directory(const std::string& path) override;
  Outcome<std::vector<std::string>> list_directory(const std::string& path) override;
  Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) override;

 private:
  std::string where(const std::string& path) const;
  std::string root_;
};

}  // namespace railyard
