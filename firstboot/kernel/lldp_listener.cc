#include "kernel/lldp_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace railyard {

namespace {

constexpr std::uint8_t kNearestBridge[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
// An LLDPDU fits one frame; anything larger is cut and refused by the parser.
constexpr std::size_t kFrameMax = 9216;
// Frames read from one interface before the stop pipe and the other interfaces are looked
// at again: a wake-up costs at most this many frames' parsing, some 1 ms.
constexpr int kFramesPerWake = 16;

// A raw socket for LLDP frames on one interface, with the nearest-bridge group address
// joined (a NIC filters multicast it was not asked for). Returns why it failed, or "".
std::string open_port(const std::string& ifname, int& fd) {
  unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) return ifname + ": " + std::strerror(errno);
  // Protocol 0 until bound: a socket opened with ETH_P_LLDP would take every interface's
  // frames until bind() narrows it to this one.
  fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return "socket(AF_PACKET): " + std::string(std::strerror(errno));
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(kLldpEthertype);
  addr.sll_ifindex = static_cast<int>(index);
  packet_mreq group{};
  group.mr_ifindex = static_cast<int>(index);
  group.mr_type = PACKET_MR_MULTICAST;
  group.mr_alen = sizeof kNearestBridge;
  std::memcpy(group.mr_address, kNearestBridge, sizeof kNearestBridge);
  std::string why;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) why = ifname + ": bind: " + std::strerror(errno);
  else if (::setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &group, sizeof group) < 0)
    why = ifname + ": join 01:80:c2:00:00:0e: " + std::strerror(errno);
  if (!why.empty()) {
    ::close(fd);
    fd = -1;
  }
  return why;
}

LldpHeard not_listening(const std::string& why) {
  LldpHeard h;
  h.invalid = "not listening" + why;
  return h;
}

}  // namespace

LldpListener::LldpListener(const std::vector<std::string>& ifnames, std::chrono::seconds wait)
    : deadline_(std::chrono::steady_clock::now() + wait) {
  for (const auto& ifname : ifnames) {
    Port p;
    p.ifname = ifname;
    p.error = open_port(ifname, p.fd);
    ports_.push_back(std::move(p));
  }
  if (::pipe2(wake_, O_CLOEXEC) < 0) {
    for (auto& p : ports_)
      if (p.error.empty()) p.error = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  thread_ = std::thread([this] { run(); });
}

LldpListener::~LldpListener() {
  if (thread_.joinable()) {
    stop_ = true;
    char stop = 0;
    (void)!::write(wake_[1], &stop, 1);
    thread_.join();
  }
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
  for (auto& p : ports_)
    if (p.fd >= 0) ::close(p.fd);
}

// Each second, every interface may have kLldpFramesPerSecond frames read and parsed, a few
// at each wake-up. One that has had its share is not polled until the next second: its
// frames wait in the socket's buffer, and those past it the kernel drops and counts, which
// costs the agent nothing. The stop pipe is looked at on every wake-up, and the stop flag
// between frames.
void LldpListener::run() {
  using Clock = std::chrono::steady_clock;
  std::vector<pollfd> fds{{wake_[0], POLLIN, 0}};
  for (const auto& p : ports_) fds.push_back({p.fd, POLLIN, 0});  // poll() skips a negative fd
  std::vector<bool> gone(ports_.size(), false);                   // the interface went away: polled no more
  std::vector<int> read(ports_.size(), 0);                        // frames read this second
  std::vector<std::uint8_t> buffer(kFrameMax);
  auto second = Clock::now();
  while (!stop_) {
    auto now = Clock::now();
    if (now - second >= std::chrono::seconds(1)) {
      count_second(now - second);
      second = now;
      for (std::size_t i = 0; i < ports_.size(); ++i) {
        read[i] = 0;
        fds[i + 1].fd = gone[i] ? -1 : ports_[i].fd;
      }
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(second + std::chrono::seconds(1) - now);
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(left.count(), 1))) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    for (std::size_t i = 0; i < ports_.size() && !stop_; ++i) {
      pollfd& pfd = fds[i + 1];
      if (pfd.fd < 0 || !pfd.revents) continue;
      if (pfd.revents & (POLLHUP | POLLNVAL)) {
        gone[i] = true;
        pfd.fd = -1;
        continue;
      }
      if (pfd.revents & POLLERR) {  // the interface went down, say: read the error, or poll says it again
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
      if (!(pfd.revents & POLLIN)) continue;
      read[i] += read_port(i, std::min(kFramesPerWake, kLldpFramesPerSecond - read[i]), buffer);
      if (read[i] >= kLldpFramesPerSecond) pfd.fd = -1;  // its share of this second is read
    }
  }
}

int LldpListener::read_port(std::size_t i, int budget, std::vector<std::uint8_t>& buffer) {
  int n = 0;
  for (; n < budget && !stop_; ++n) {
    ssize_t got = ::recv(ports_[i].fd, buffer.data(), buffer.size(), MSG_TRUNC);
    if (got < 0) break;  // EAGAIN: drained
    auto parsed = parse_lldp_frame({buffer.data(), std::min(static_cast<std::size_t>(got), buffer.size())});
    std::lock_guard lock(mutex_);
    add_frame(ports_[i].heard, std::move(parsed));
    changed_.notify_all();
  }
  return n;
}

void LldpListener::count_second(std::chrono::nanoseconds elapsed) {
  for (auto& p : ports_) {
    if (p.fd < 0) continue;
    // The frames that came since the last reading, those dropped among them, both reset by
    // reading them.
    tpacket_stats st{};
    socklen_t len = sizeof st;
    if (::getsockopt(p.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0) continue;
    std::lock_guard lock(mutex_);
    add_second(p.heard, st.tp_packets, st.tp_drops, elapsed);
  }
}

LldpHeard LldpListener::heard(const std::string& ifname, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  for (auto& p : ports_) {
    if (p.ifname != ifname) continue;
    if (!p.error.empty()) return not_listening(": " + p.error);
    changed_.wait_until(lock, deadline, [&] { return p.heard.neighbor.has_value(); });
    return p.heard;
  }
  return not_listening(" on " + ifname);
}

}  // namespace railyard
