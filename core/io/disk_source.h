// The real FileSource: reads the disk. Kept out of the pure core target.
#pragma once

#include "../source.h"

namespace railyard {

class DiskSource : public FileSource {
 public:
  std::optional<std::string> read(const std::string& path) const override;
  bool is_directory(const std::string& path) const override;
  bool is_file(const std::string& path) const override;
  std::string why_unreadable(const std::string& path) const override;
};

// Serves some files from memory (the embedded default recipe) and the rest from another source.
class LayeredSource : public FileSource {
 public:
  explicit LayeredSource(const FileSource& lower) : lower_(lower) {}
  void add(const std::string& path, std::string text) { upper_.add(path, std::move(text)); }
  std::optional<std::string> read(const std::string& path) const override {
    if (auto t = upper_.read(path)) return t;
    return lower_.read(path);
  }
  bool is_directory(const std::string& path) const override { return lower_.is_directory(path); }
  std::string why_unreadable(const std::string& path) const override { return lower_.why_unreadable(path); }

 private:
  const FileSource& lower_;
  MemorySource upper_;
};

}  // namespace railyard
