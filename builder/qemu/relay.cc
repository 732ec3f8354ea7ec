#include <spdlog/spdlog.h>

#include "relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace railyard {

namespace {

// Writes all of `n` bytes; false when the other side is gone.
bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

int connect_to(const std::string& host_port) {
  auto colon = host_port.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  int port = colon == std::string::npos ? 0 : std::atoi(host_port.c_str() + colon + 1);
  if (port <= 0 || port > 65535 || ::inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &addr.sin_addr) != 1) {
    spdlog::error("--relay: '{}' is not IPV4:PORT", host_port);
    return -1;
  }
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    spdlog::error("--relay: {}: {}", host_port, std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

double monotonic_s() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

}  // namespace

bool relay_in_outage(const std::string& state_file, int seconds) {
  const double now = monotonic_s();
  int fd = ::open(state_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    std::string start = std::to_string(now) + "\n";
    bool written = write_all(fd, start.data(), start.size());
    ::close(fd);
    if (!written) spdlog::error("--relay-outage: {}: cannot write the outage's start", state_file);
    return true;
  }
  if (errno != EEXIST) {
    spdlog::error("--relay-outage: {}: {}", state_file, std::strerror(errno));
    return true;  // refused, as the fault asks, rather than let the connection through unnoticed
  }
  char text[64] = {};
  int in = ::open(state_file.c_str(), O_RDONLY | O_CLOEXEC);
  ssize_t n = in >= 0 ? ::read(in, text, sizeof text - 1) : -1;
  if (in >= 0) ::close(in);
  char* end = nullptr;
  double start = n > 0 ? std::strtod(text, &end) : 0;
  // Created but not written yet: the outage has just begun.
  if (n <= 0 || end == text) return true;
  return now < start + seconds;
}

int relay(const std::string& host_port, int in, int out) {
  int sock = connect_to(host_port);
  if (sock < 0) return 1;
  bool from_in = true, from_sock = true;  // directions still open
  char buf[16384];
  while (from_in || from_sock) {
    pollfd p[2] = {{from_in ? in : -1, POLLIN, 0}, {from_sock ? sock : -1, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (from_in && p[0].revents) {
      ssize_t n = ::read(in, buf, sizeof buf);
      if (n > 0 && write_all(sock, buf, static_cast<std::size_t>(n))) continue;
      from_in = false;
      ::shutdown(sock, SHUT_WR);  // the guest finished sending; the service may still answer
    }
    if (from_sock && p[1].revents) {
      ssize_t n = ::read(sock, buf, sizeof buf);
      if (n > 0 && write_all(out, buf, static_cast<std::size_t>(n))) continue;
      from_sock = false;
      ::shutdown(out, SHUT_WR);  // a socket under QEMU; harmless on anything else
      from_in = false;           // nothing left to answer: the exchange is over
    }
  }
  ::close(sock);
  return 0;
}

}  // namespace railyard
