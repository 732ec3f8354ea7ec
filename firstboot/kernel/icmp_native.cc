// NativeIcmp::echo: one ICMP echo over a raw socket (the agent runs as root; the unprivileged
// ICMP datagram socket depends on net.ipv4.ping_group_range), bound to the source address.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "kernel/icmp_native.h"

namespace railyard {

namespace {

std::uint16_t checksum(const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < len; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (len & 1) sum += static_cast<std::uint32_t>(p[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons(static_cast<std::uint16_t>(~sum));
}

}  // namespace

constexpr int kEchoIntervalMs = 500;

Outcome<bool> NativeIcmp::echo(const std::string& from, const std::string& to, int timeout_ms) {
  using Result = Outcome<bool>;
  std::string what = "echo " + to + " from " + from;
  sockaddr_in src{}, dst{};
  src.sin_family = dst.sin_family = AF_INET;
  if (inet_pton(AF_INET, from.c_str(), &src.sin_addr) != 1 || inet_pton(AF_INET, to.c_str(), &dst.sin_addr) != 1)
    return Result::from_errno(EINVAL, what);
  int fd = ::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd < 0) return Result::from_errno(errno, what + ": raw socket");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) return Result::from_errno(errno, what + ": bind");
  const auto id = static_cast<std::uint16_t>(::getpid() & 0xffff);
  // An echo every 500 ms until the deadline: the first may be lost while the neighbour is
  // resolved (or to a neighbour entry that failed before), and an isolation probe must not
  // call a leak absent because one packet was dropped.
  std::uint16_t sequence = 0;
  auto send_one = [&]() -> Outcome<bool> {
    icmphdr req{};
    req.type = ICMP_ECHO;
    req.un.echo.id = htons(id);
    req.un.echo.sequence = htons(++sequence);
    req.checksum = checksum(&req, sizeof req);
    if (::sendto(fd, &req, sizeof req, 0, reinterpret_cast<sockaddr*>(&dst), sizeof dst) < 0) {
      // No route, or the neighbour unreachable: nothing can answer.
      if (errno == ENETUNREACH || errno == EHOSTUNREACH) return Result(false);
      return Result::from_errno(errno, what + ": send");
    }
    return Result(true);
  };
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto deadline = now() + std::chrono::milliseconds(timeout_ms);
  auto next_send = now();
  for (;;) {
    if (now() >= next_send) {
      auto sent = send_one();
      if (!sent.ok() || !*sent) return sent;
      next_send += std::chrono::milliseconds(kEchoIntervalMs);
    }
    auto until = std::min(deadline, next_send);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now()).count();
    if (now() >= deadline) return Result(false);
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(left, 0)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Result::from_errno(errno, what + ": poll");
    if (n == 0) continue;  // time to send again, or the deadline
    unsigned char buf[1500];
    sockaddr_in peer{};
    socklen_t plen = sizeof peer;
    ssize_t got = ::recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&peer), &plen);
    if (got < static_cast<ssize_t>(sizeof(iphdr))) continue;
    const auto* ip = reinterpret_cast<const iphdr*>(buf);
    std::size_t hl = static_cast<std::size_t>(ip->ihl) * 4;
    if (static_cast<std::size_t>(got) < hl + sizeof(icmphdr)) continue;
    icmphdr reply;
    std::memcpy(&reply, buf + hl, sizeof reply);
    if (peer.sin_addr.s_addr == dst.sin_addr.s_addr && reply.type == ICMP_ECHOREPLY && ntohs(reply.un.echo.id) == id)
      return Result(true);
  }
}

}  // namespace railyard
