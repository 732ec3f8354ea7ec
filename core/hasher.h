// The one cryptographic primitive the core needs (cache keys), behind an interface: the core
// links no crypto library and must not carry its own, so the builder passes OpenSSL in.
#pragma once

#include <string>
#include <string_view>

namespace railyard {

class Hasher {
 public:
  virtual ~Hasher() = default;
  // SHA-256 of `data` as 64 lower-case hex digits.
  virtual std::string sha256_hex(std::string_view data) = 0;
};

}  // namespace railyard
