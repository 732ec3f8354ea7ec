// Errors as values in the builder: a value, or why there is none, with context added at
// each layer ("cache entry base/3f2a…: output/etc/hostname: size 12, expected 9").
// Named apart from the agent's Expected/Status so the two never meet in one program.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace railyard {

struct Done {};  // the value of an operation that only succeeds or fails

template <class T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : value_(std::move(value)) {}  // NOLINT: implicit, so `return value;` reads plainly
  static Outcome fail(std::string why) {
    Outcome o;
    o.error_ = std::move(why);
    return o;
  }
  template <class U>
  static Outcome fail(const Outcome<U>& other, const std::string& context) {
    return fail(context + ": " + other.error());
  }

  bool ok() const { return value_.has_value(); }
  const std::string& error() const { return error_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Outcome() = default;
  std::optional<T> value_;
  std::string error_;
};

using Status = Outcome<Done>;
inline Status success() { return Done{}; }

}  // namespace railyard
