#include "disk_source.h"

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

bool DiskSource::is_file(const std::string& path) const {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace railyard
