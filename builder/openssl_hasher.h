// SHA-256 from OpenSSL: the core's Hasher, plus streaming over files for the builder.
#pragma once

#include <string>

#include "hasher.h"
#include "outcome.h"

namespace railyard {

class OpenSslHasher : public Hasher {
 public:
  std::string sha256_hex(std::string_view data) override;
  // Reads in blocks, so multi-GiB files (CUDA libraries, initramfs parts) never sit in memory.
  Outcome<std::string> sha256_file(const std::string& path);
};

}  // namespace railyard
