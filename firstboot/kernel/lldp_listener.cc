#include "kernel/lldp_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace railyard {

namespace {

constexpr std::uint8_t kNearestBridge[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
// An LLDPDU fits one frame; anything larger is cut and refused by the parser.
constexpr std::size_t kFrameMax = 9216;

// A raw socket for LLDP frames on one interface, with the nearest-bridge group address
// joined (a NIC filters multicast it was not asked for). Returns why it failed, or "".
std::string open_port(const std::string& ifname, int& fd) {
  unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) return ifname + ": " + std::strerror(errno);
  fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(kLldpEthertype));
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
    char stop = 0;
    (void)!::write(wake_[1], &stop, 1);
    thread_.join();
  }
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
  for (auto& p : ports_)
    if (p.fd >= 0) ::close(p.fd);
}

void LldpListener::run() {
  std::vector<pollfd> fds{{wake_[0], POLLIN, 0}};
  for (const auto& p : ports_) fds.push_back({p.fd, static_cast<short>(p.fd >= 0 ? POLLIN : 0), 0});
  std::vector<std::uint8_t> frame(kFrameMax);
  for (;;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      for (;;) {
        ssize_t n = ::recv(fds[i].fd, frame.data(), frame.size(), MSG_TRUNC);
        if (n < 0) break;  // EAGAIN: drained
        auto parsed = parse_lldp_frame({frame.data(), std::min(static_cast<std::size_t>(n), frame.size())});
        std::lock_guard lock(mutex_);
        LldpHeard& h = ports_[i - 1].heard;
        ++h.frames;
        if (parsed.ok()) h.neighbor = std::move(*parsed);
        else h.invalid = parsed.error();
        changed_.notify_all();
      }
    }
  }
}

LldpHeard LldpListener::heard(const std::string& ifname, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  for (auto& p : ports_) {
    if (p.ifname != ifname) continue;
    if (!p.error.empty()) return {std::nullopt, "not listening: " + p.error, 0};
    changed_.wait_until(lock, deadline, [&] { return p.heard.neighbor.has_value(); });
    return p.heard;
  }
  return {std::nullopt, "not listening on " + ifname, 0};
}

}  // namespace railyard
