// The node's files: /proc/sys and /sys attributes, configfs, block devices, and the few
// ordinary files the agent writes (under --root).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "outcome.h"

namespace railyard {

class Files {
 public:
  virtual ~Files() = default;
  virtual Outcome<std::string> read_file(const std::string& path) = 0;  // trailing newline dropped
  virtual Status write_file(const std::string& path, const std::string& value) = 0;
  virtual Status make_directory(const std::string& path) = 0;
  virtual Outcome<std::vector<std::string>> list_directory(const std::string& path) = 0;  // sorted names
  // Reads the first `bytes` of a file or block device; how many were read.
  virtual Outcome<std::size_t> read_block(const std::string& path, std::size_t bytes) = 0;
};

}  // namespace railyard
