// Errors as values, in both programs: a value, or why there is none. The why is words for
// people, with context added at each layer ("cache entry base/3f2a…: output/etc/hostname:
// size 12, expected 9"). A failure that came from the kernel keeps its errno as well, for
// the callers that decide on it (a device without DCB answers EOPNOTSUPP: unsupported, not
// failed).
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

namespace railyard {

struct Done {};  // the value of an operation that only succeeds or fails

template <class T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : value_(std::move(value)) {}  // NOLINT: implicit, so `return value;` reads plainly

  static Outcome fail(std::string why) { return fail(0, std::move(why)); }
  // A failure with its errno (0 when it has none).
  static Outcome fail(int code, std::string why) {
    Outcome o;
    o.code_ = code;
    o.error_ = std::move(why);
    return o;
  }
  // `what: strerror(err)`, keeping err.
  static Outcome from_errno(int err, const std::string& what) { return fail(err, what + ": " + std::strerror(err)); }
  // Another outcome's failure, as it is or with context before it; its errno stays.
  template <class U>
  static Outcome fail(const Outcome<U>& other) {
    return fail(other.code(), other.error());
  }
  template <class U>
  static Outcome fail(const Outcome<U>& other, const std::string& context) {
    return fail(other.code(), context + ": " + other.error());
  }

  bool ok() const { return value_.has_value(); }
  const std::string& error() const { return error_; }
  // The errno of a failure that came from the kernel; 0 on success and for other failures.
  int code() const { return code_; }
  // The device or kernel lacks the feature (virtio has no DCB, upstream mlx5 no ECN files).
  // A device that does not exist (ENODEV) is a failure, not a missing feature.
  bool unsupported() const { return code_ == EOPNOTSUPP || code_ == ENOTSUP || code_ == ENOENT; }
  // The failure without the value; success when there is a value.
  Outcome<Done> status() const { return ok() ? Outcome<Done>(Done{}) : Outcome<Done>::fail(code_, error_); }

  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Outcome() = default;
  std::optional<T> value_;
  int code_ = 0;
  std::string error_;
};

using Status = Outcome<Done>;
inline Status success() { return Done{}; }

}  // namespace railyard
