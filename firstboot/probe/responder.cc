#include "probe/responder.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>

#include <spdlog/spdlog.h>

namespace railyard {

std::uint64_t probe_digest(std::span<const std::uint8_t> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

namespace {

sockaddr_in socket_address(Ipv4 address, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(address.value);
  return a;
}

// One whole frame, or nothing: a socket that cannot take 64 bytes at once is a peer that does
// not read, and is dropped.
bool send_frame(int fd, const ProbeFrame& frame) {
  ProbeBytes b = encode_probe_frame(frame);
  return ::send(fd, b.data(), b.size(), MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(b.size());
}

}  // namespace

Responder::Responder(std::vector<ResponderRail> rails, std::uint16_t port, ResponderLimits limits, ProbeSlices& slices)
    : rails_(std::move(rails)), port_(port), limits_(limits), slices_(slices), slice_taken_(slices.count(), false) {}

Responder::~Responder() {
  for (auto& p : peers_) drop(p);
  for (int fd : listeners_) ::close(fd);
}

Status Responder::listen() {
  for (const auto& rail : rails_) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return Status::from_errno(errno, "socket");
    listeners_.push_back(fd);
    int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in a = socket_address(rail.address, port_);
    std::string where = rail.address.str() + ":" + std::to_string(port_);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      return Status::from_errno(errno, "rail " + std::to_string(rail.index) + ": bind " + where);
    if (::listen(fd, 64) != 0) return Status::from_errno(errno, "listen on " + where);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ports_.push_back(ntohs(a.sin_port));
  }
  return success();
}

std::uint16_t Responder::port(std::size_t rail) const { return rail < ports_.size() ? ports_[rail] : 0; }

void Responder::refuse(int fd, ProbeRefusal why) {
  send_frame(fd, ProbeRefuse{why});
  ::close(fd);
}

void Responder::drop(Peer& p) {
  if (p.slice) {
    slices_.close(*p.slice);
    slice_taken_[*p.slice] = false;
    p.slice.reset();
  }
  if (p.fd >= 0) ::close(p.fd);
  p.fd = -1;
}

void Responder::accept_on(std::size_t rail) {
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    int fd = ::accept4(listeners_[rail], reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: all taken; anything else: the next poll tries again
    Ipv4 peer{ntohl(from.sin_addr.s_addr)};
    std::string who = peer.str() + ":" + std::to_string(ntohs(from.sin_port));
    const auto& allowed = rails_[rail].peers;
    if (std::none_of(allowed.begin(), allowed.end(), [&](const Cidr& c) { return c.contains(peer); })) {
      ++counts_.outsiders;
      spdlog::debug("probe responder: {} on rail {} is outside the rail's network: refused", who, rails_[rail].index);
      refuse(fd, ProbeRefusal::not_a_rail_peer);
      continue;
    }
    if (peers_.size() >= slices_.count()) {
      ++counts_.busy;
      refuse(fd, ProbeRefusal::busy);
      continue;
    }
    Peer p;
    p.fd = fd;
    p.rail = rail;
    p.who = std::move(who);
    p.deadline = Clock::now() + limits_.peer_time;
    peers_.push_back(std::move(p));
  }
}

bool Responder::read_from(Peer& p) {
  for (;;) {
    ssize_t n = ::recv(p.fd, p.frame.data() + p.got, p.frame.size() - p.got, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;  // the peer closed, or the connection failed
    p.got += static_cast<std::size_t>(n);
    if (p.got < p.frame.size()) continue;
    p.got = 0;
    auto frame = decode_probe_frame(p.frame);
    if (!frame.ok()) {
      ++counts_.refused;
      spdlog::debug("probe responder: {}: {}", p.who, frame.error());
      send_frame(p.fd, ProbeRefuse{ProbeRefusal::bad_request});
      return false;
    }
    if (!answer(p, *frame)) return false;
  }
}

bool Responder::answer(Peer& p, const ProbeFrame& frame) {
  const ResponderRail& rail = rails_[p.rail];
  auto refuse_with = [&](ProbeRefusal why) {
    ++counts_.refused;
    send_frame(p.fd, ProbeRefuse{why});
    return false;
  };
  if (const auto* hello = std::get_if<ProbeHello>(&frame); hello && !p.slice) {
    if (hello->rail != rail.index) return refuse_with(ProbeRefusal::no_such_rail);
    if (hello->bytes > slices_.slice_bytes()) return refuse_with(ProbeRefusal::too_large);
    auto free = std::find(slice_taken_.begin(), slice_taken_.end(), false);
    std::size_t slice = static_cast<std::size_t>(free - slice_taken_.begin());
    auto accepted = slices_.open(p.rail, slice, *hello);
    if (!accepted.ok()) {
      ++counts_.failed;
      spdlog::warn("probe responder: rail {}: cannot serve {}: {}", rail.index, p.who, accepted.error());
      send_frame(p.fd, ProbeRefuse{ProbeRefusal::internal});
      slices_.close(slice);
      return false;
    }
    slice_taken_[slice] = true;
    p.slice = slice;
    p.length = hello->bytes;
    return send_frame(p.fd, *accepted);
  }
  if (const auto* check = std::get_if<ProbeCheck>(&frame); check && p.slice) {
    if (check->length > p.length) return refuse_with(ProbeRefusal::bad_request);
    std::uint64_t held = probe_digest(slices_.contents(*p.slice, check->length));
    bool match = held == check->digest;
    ++(match ? counts_.verified : counts_.mismatched);
    spdlog::info("probe responder: rail {}: {} wrote {} bytes{}", rail.index, p.who, check->length,
                 match ? ", as it meant to" : ": they differ from what it meant to write");
    send_frame(p.fd, ProbeVerdict{match, held});
    return false;
  }
  return refuse_with(ProbeRefusal::bad_request);  // a frame out of turn
}

Status Responder::serve(int stop_fd) {
  if (listeners_.size() != rails_.size()) return Status::fail("probe responder: not listening");
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    fds.push_back({stop_fd, POLLIN, 0});
    for (int fd : listeners_) fds.push_back({fd, POLLIN, 0});
    for (const auto& p : peers_) fds.push_back({p.fd, POLLIN, 0});
    auto now = Clock::now();
    auto next = now + std::chrono::hours(1);
    for (const auto& p : peers_) next = std::min(next, p.deadline);
    int wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - now).count());
    int ready = ::poll(fds.data(), fds.size(), std::max(wait_ms, 0));
    if (ready < 0 && errno != EINTR) return Status::from_errno(errno, "probe responder: poll");
    if (ready > 0 && fds[0].revents) return success();
    // The peers as they were polled: those accepted below are polled next time round.
    const std::size_t polled = peers_.size();
    for (std::size_t i = 0; i < polled; ++i) {
      Peer& p = peers_[i];
      if (ready > 0 && fds[1 + listeners_.size() + i].revents && !read_from(p)) drop(p);
      else if (p.fd >= 0 && Clock::now() >= p.deadline) {
        ++counts_.timed_out;
        spdlog::debug("probe responder: {} took longer than {} ms: dropped", p.who, limits_.peer_time.count());
        drop(p);
      }
    }
    std::erase_if(peers_, [](const Peer& p) { return p.fd < 0; });
    if (ready > 0)
      for (std::size_t r = 0; r < listeners_.size(); ++r)
        if (fds[1 + r].revents) accept_on(r);
  }
}

std::vector<ResponderRail> responder_rails(const Recipe& recipe, const NodeEntry& self) {
  std::vector<Cidr> nets;
  auto add = [&nets](const std::string& text) {
    if (auto c = parse_cidr(text)) nets.push_back(*c);
  };
  const bool routed = recipe.routing.mode == RoutingMode::bgp_unnumbered;
  if (routed)
    for (const auto& p : recipe.routing.fabric_prefixes) add(p);
  else if (recipe.addressing.mode == AddressingMode::shared_subnet) add(recipe.addressing.subnet);
  std::vector<ResponderRail> out;
  for (std::size_t r = 0; r < self.rails.size(); ++r) {
    auto a = parse_interface_address(self.rails[r]);
    if (!a) continue;
    ResponderRail rail{static_cast<std::uint16_t>(r), a->address, nets};
    if (!routed && recipe.addressing.mode == AddressingMode::per_rail_subnet) {
      rail.peers.clear();
      if (r < recipe.addressing.subnets.size())
        if (auto c = parse_cidr(recipe.addressing.subnets[r])) rail.peers.push_back(*c);
    }
    out.push_back(std::move(rail));
  }
  return out;
}

}  // namespace railyard
