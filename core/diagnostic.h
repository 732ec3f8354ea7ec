// Errors as values: every problem found in an input file, with where it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace railyard {

struct SourcePos {
  std::string file;
  std::uint32_t line = 0;  // 1-based; 0 when unknown
  std::uint32_t column = 0;
};

struct Diagnostic {
  SourcePos pos;
  std::string message;
};

// `FILE:LINE:COL: error: MESSAGE`, the contract `railyard check` prints.
std::string format(const Diagnostic& d);

class Diagnostics {
 public:
  void error(SourcePos pos, std::string message);
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  void append(const Diagnostics& other);
  // Stable order for printing: by file, line, column, then insertion.
  std::vector<Diagnostic> sorted() const;

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace railyard
