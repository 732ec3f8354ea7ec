#include "openssl_hasher.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include <openssl/evp.h>

namespace railyard {

namespace {

using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Outcome<std::string>::fail(path + ": " + std::strerror(errno));
  Context ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  // One buffer per thread, reused: a fresh 1 MiB buffer per file costs more (mmap, page
  // faults, zeroing) than hashing the thousands of small files of a root filesystem.
  static constexpr std::size_t kBlock = 1 << 20;
  thread_local const std::unique_ptr<char[]> buffer(new char[kBlock]);
  for (;;) {
    ssize_t got = ::read(fd, buffer.get(), kBlock);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      std::string why = path + ": read: " + std::strerror(errno);
      ::close(fd);
      return Outcome<std::string>::fail(why);
    }
    EVP_DigestUpdate(ctx.get(), buffer.get(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return finish(ctx.get());
}

}  // namespace railyard
