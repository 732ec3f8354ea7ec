#include "kernel/root_files.h"

#include <filesystem>

#include "io/atomic_file.h"

namespace railyard {

std::string write_root_file(const std::string& root, const std::string& path, const std::string& content, int mode) {
  namespace fs = std::filesystem;
  fs::path target = fs::path(root.empty() ? "/" : root) / fs::path(path).relative_path();
  Status s = write_file_atomically(target.string(), content, static_cast<unsigned>(mode));
  return s.ok() ? "" : s.error();
}

}  // namespace railyard
