#include "content_digest.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include <xxhash.h>

namespace railyard {

namespace {

std::string to_hex(const XXH128_hash_t& h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : c.digest) {
    out += hex[b >> 4];
    out += hex[b & 0xf];
  }
  return out;
}

}  // namespace

std::string xxh128_hex(std::string_view data) { return to_hex(XXH3_128bits(data.data(), data.size())); }

Outcome<std::string> xxh128_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Outcome<std::string>::fail(path + ": " + std::strerror(errno));
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  static constexpr std::size_t kBlock = 1 << 20;
  thread_local const std::unique_ptr<char[]> buffer(new char[kBlock]);  // see OpenSslHasher::sha256_file
  for (;;) {
    ssize_t got = ::read(fd, buffer.get(), kBlock);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      std::string why = path + ": read: " + std::strerror(errno);
      ::close(fd);
      return Outcome<std::string>::fail(why);
    }
    XXH3_128bits_update(state.get(), buffer.get(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return to_hex(XXH3_128bits_digest(state.get()));
}

}  // namespace railyard
