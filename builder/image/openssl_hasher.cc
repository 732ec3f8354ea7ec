#include "openssl_hasher.h"

#include <openssl/evp.h>

#include "content_digest.h"

namespace railyard {

namespace {

std::string to_hex(const unsigned char* digest, unsigned int n) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx, digest, &n);
  return to_hex(digest, n);
}

}  // namespace

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(ctx_); }
void Sha256Stream::update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx_, data, n); }
std::string Sha256Stream::hex() { return finish(ctx_); }

std::string OpenSslHasher::sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  // One-shot EVP_Digest cannot fail for SHA-256 short of memory exhaustion.
  EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr);
  return to_hex(digest, n);
}

Outcome<std::string> OpenSslHasher::sha256_file(const std::string& path) {
  Sha256Stream sha256;
  auto read = read_in_blocks(path, [&](const char* data, std::size_t n) { sha256.update(data, n); });
  if (!read.ok()) return Outcome<std::string>::fail(read.error());
  return sha256.hex();
}

}  // namespace railyard
