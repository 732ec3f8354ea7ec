#include "diagnostic.h"

#include <algorithm>

namespace railyard {

std::string format(const Diagnostic& d) {
  std::string out = d.pos.file.empty() ? std::string("<input>") : d.pos.file;
  if (d.pos.line > 0) {
    out += ':' + std::to_string(d.pos.line);
    if (d.pos.column > 0) out += ':' + std::to_string(d.pos.column);
  }
  out += ": error: ";
  out += d.message;
  return out;
}

void Diagnostics::error(SourcePos pos, std::string message) { items_.push_back({std::move(pos), std::move(message)}); }

void Diagnostics::append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  std::vector<Diagnostic> out = items_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.pos.file != b.pos.file) return a.pos.file < b.pos.file;
    if (a.pos.line != b.pos.line) return a.pos.line < b.pos.line;
    return a.pos.column < b.pos.column;
  });
  return out;
}

}  // namespace railyard
