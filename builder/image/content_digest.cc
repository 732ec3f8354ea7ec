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

Status read_in_blocks(const std::string& path, const std::function<void(const char*, std::size_t)>& consume) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Status::fail(path + ": " + std::strerror(errno));
  static constexpr std::size_t kBlock = 1 << 20;
  thread_local const std::unique_ptr<char[]> buffer(new char[kBlock]);
  for (;;) {
    ssize_t got = ::read(fd, buffer.get(), kBlock);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      std::string why = path + ": read: " + std::strerror(errno);
      ::close(fd);
      return Status::fail(why);
    }
    consume(buffer.get(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return success();
}

Outcome<std::string> xxh128_file(const std::string& path) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  auto read = read_in_blocks(path, [&](const char* data, std::size_t n) { XXH3_128bits_update(state.get(), data, n); });
  if (!read.ok()) return Outcome<std::string>::fail(read.error());
  return to_hex(XXH3_128bits_digest(state.get()));
}

}  // namespace railyard
