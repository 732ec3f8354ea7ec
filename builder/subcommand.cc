#include "subcommand.h"

#include <filesystem>
#include <system_error>

namespace railyard {

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

}  // namespace railyard
