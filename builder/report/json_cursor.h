// A lean pull reader over JSON text, for reading thousands of reports quickly: it decodes
// only the values asked for and steps over the rest (a report's plan, changes and
// inventory) without building them. Everything it passes is checked against the JSON
// grammar, skipped values included, so a truncated or malformed file is an error with a
// line and column (skip_balanced checks less, and says what). Strings are not checked for
// valid UTF-8.
//
//   JsonCursor c(text);
//   if (c.begin_object())
//     for (std::string_view key; c.next_key(key);)
//       if (key == "node") c.read_string(node); else c.skip_value();
//   if (!c.finish()) return c.error();
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

class JsonCursor {
 public:
  enum class Kind { object, array, string, number, boolean, null, end, invalid };

  explicit JsonCursor(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  // What the next value is, without consuming it.
  Kind peek();

  // Objects: begin_object(), then next_key() until it returns false (at '}' or on error);
  // after each key, read or skip its value. The key stays valid until the next call.
  bool begin_object();
  bool next_key(std::string_view& key);
  // Arrays: begin_array(), then next_element() until it returns false; then read the element.
  bool begin_array();
  bool next_element();

  bool read_string(std::string& out);
  bool read_number(double& out);
  bool read_bool(bool& out);
  bool skip_value();
  // Steps over a large value the reader does not need, sixteen bytes at a time: its strings
  // are checked as ever and its brackets must match and close, but the commas, colons and
  // numbers between them are not (a reader that needs the value parses it whole).
  bool skip_balanced();

  // After the top-level value: nothing but white space may follow.
  bool finish();

  bool failed() const { return !error_.empty(); }
  // "line L, column C: what was wrong"; "" when nothing was.
  const std::string& error() const { return error_; }
  // Sets the error at the current position (for readers that find a value of the wrong kind),
  // or at an offset taken earlier (the start of a value found wrong once read).
  bool fail(const std::string& what);
  bool fail_at(std::size_t offset, const std::string& what);
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }

 private:
  // Most calls find nothing to skip, or exactly the character expected: those stay inline.
  void skip_ws() {
    if (p_ == end_ || static_cast<unsigned char>(*p_) <= ' ') skip_ws_run();
  }
  void skip_ws_run();
  bool expect(char c, const char* what) {
    if (p_ < end_ && *p_ == c) return ++p_, true;
    return expect_after_ws(c, what);
  }
  bool expect_after_ws(char c, const char* what);
  bool scan_string(std::string* out);  // at the opening quote
  bool scan_number(double* out);
  bool scan_literal(std::string_view word);
  bool skip(int depth);

  const char* begin_;
  const char* p_;
  const char* end_;
  std::vector<char> first_;  // per open container: 1 while no member has been read
  std::string key_;          // a key that had escapes, decoded
  std::string error_;
};

}  // namespace railyard
