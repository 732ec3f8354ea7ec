// A value or the Status saying why there is none.
#pragma once

#include <optional>

#include "kernel/status.h"

namespace railyard {

template <class T>
struct Expected {
  std::optional<T> value;
  Status status;
  bool ok() const { return value.has_value(); }
  static Expected of(T v) { return {std::move(v), {}}; }
  static Expected fail(Status s) { return {std::nullopt, std::move(s)}; }
};

}  // namespace railyard
