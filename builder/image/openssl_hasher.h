// SHA-256 from OpenSSL: the core's Hasher, plus streaming over files for the builder.
#pragma once

#include <string>

#include "hasher.h"
#include "outcome.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace railyard {

// SHA-256 over bytes as they stream past (an archive as it is written), so that nothing has
// to be read back to be hashed.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void update(const void* data, std::size_t n);
  std::string hex();  // once, at the end

 private:
  ::evp_md_ctx_st* ctx_;
};

class OpenSslHasher : public Hasher {
 public:
  std::string sha256_hex(std::string_view data) override;
  // Reads in blocks, so multi-GiB files (CUDA libraries, initramfs parts) never sit in memory.
  // Keeps no state: several threads may hash at once.
  Outcome<std::string> sha256_file(const std::string& path);
};

}  // namespace railyard
