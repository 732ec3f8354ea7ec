// The core reads files only through this interface: the programs pass the disk,
// tests pass memory. Keeps the core free of system calls.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

namespace railyard {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The whole file, or nothing when it does not exist or cannot be read.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  virtual bool is_directory(const std::string& path) const = 0;
  virtual bool is_file(const std::string& path) const { return read(path).has_value(); }
  // Why read(path) gave nothing, as the system says it ("No such file or directory",
  // "Permission denied", "Is a directory").
  virtual std::string why_unreadable(const std::string& path) const {
    return is_directory(path) ? "Is a directory" : "No such file or directory";
  }
};

class MemorySource : public FileSource {
 public:
  void add(const std::string& path, std::string text) { files_[path] = std::move(text); }
  void add_directory(const std::string& path) { dirs_.insert(path); }
  std::optional<std::string> read(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  bool is_directory(const std::string& path) const override { return dirs_.count(path) > 0; }

 private:
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_;
};

}  // namespace railyard
