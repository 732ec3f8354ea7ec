// Reading sysfs files and links. Only calls umockdev redirects (open, stat, opendir,
// readlink), so fixtures work: never glob(), scandir() or raw syscalls.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace railyard::sysfs {

// The file's content without trailing whitespace; nothing when unreadable.
std::optional<std::string> read(const std::string& path);
std::string read_or(const std::string& path, const std::string& fallback);
int read_int_or(const std::string& path, int fallback);
// The last component of a symbolic link's target ("../../bus/pci/drivers/mlx5_core" → "mlx5_core").
std::optional<std::string> link_name(const std::string& path);
// A link resolved to an absolute path, ".." folded.
std::optional<std::string> resolve(const std::string& path);
// Names in a directory, sorted; empty when absent.
std::vector<std::string> list(const std::string& dir);
bool exists(const std::string& path);

}  // namespace railyard::sysfs
