#include "probe/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "probe/responder.h"  // probe_digest

namespace railyard {

namespace {

using Clock = std::chrono::steady_clock;

class Connection {
 public:
  Connection(const ProbeTarget& t) : t_(t), deadline_(Clock::now() + t.timeout) {}
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  std::string where() const { return t_.peer.str() + ":" + std::to_string(t_.port); }

  Status open() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Status::from_errno(errno, "socket");
    sockaddr_in local = address(t_.local, 0), peer = address(t_.peer, t_.port);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0)
      return Status::from_errno(errno, "bind " + t_.local.str());
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&peer), sizeof peer) != 0 && errno != EINPROGRESS)
      return Status::from_errno(errno, "connect to " + where());
    if (Status s = wait(POLLOUT, "connect to " + where()); !s.ok()) return s;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Status::from_errno(err, "connect to " + where());
    return success();
  }

  Status send(const ProbeFrame& frame) {
    ProbeBytes b = encode_probe_frame(frame);
    std::size_t sent = 0;
    while (sent < b.size()) {
      if (Status s = wait(POLLOUT, "send to " + where()); !s.ok()) return s;
      ssize_t n = ::send(fd_, b.data() + sent, b.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n < 0) return Status::from_errno(errno, "send to " + where());
      sent += static_cast<std::size_t>(n);
    }
    return success();
  }

  Outcome<ProbeFrame> receive() {
    ProbeBytes b{};
    std::size_t got = 0;
    while (got < b.size()) {
      if (Status s = wait(POLLIN, "answer from " + where()); !s.ok()) return Outcome<ProbeFrame>::fail(s);
      ssize_t n = ::recv(fd_, b.data() + got, b.size() - got, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n < 0) return Outcome<ProbeFrame>::from_errno(errno, "answer from " + where());
      if (n == 0) return Outcome<ProbeFrame>::fail(ECONNRESET, where() + " closed the connection without an answer");
      got += static_cast<std::size_t>(n);
    }
    return decode_probe_frame(b);
  }

 private:
  static sockaddr_in address(Ipv4 a, std::uint16_t port) {
    sockaddr_in s{};
    s.sin_family = AF_INET;
    s.sin_port = htons(port);
    s.sin_addr.s_addr = htonl(a.value);
    return s;
  }

  Status wait(short events, const std::string& what) {
    for (;;) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0)
        return Status::fail(ETIMEDOUT, what + ": no answer within " + std::to_string(t_.timeout.count()) + " ms");
      pollfd p{fd_, events, 0};
      int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) return Status::from_errno(errno, what);
      if (ready > 0) return success();
    }
  }

  const ProbeTarget& t_;
  const Clock::time_point deadline_;
  int fd_ = -1;
};

}  // namespace

Outcome<ProbeOutcome> probe_peer(const ProbeTarget& target, ProbeWriter& writer) {
  using Result = Outcome<ProbeOutcome>;
  auto qp = writer.prepare(target.bytes);
  if (!qp.ok()) return Result::fail(qp);
  Connection c(target);
  if (Status s = c.open(); !s.ok()) return Result::fail(s);
  // A responder refuses a stranger as soon as it connects, and closes: the hello may then meet
  // a reset, while the refusal waits to be read.
  Status hello = c.send(ProbeHello{target.rail, target.mtu, *qp, target.bytes});
  auto answer = c.receive();
  if (!hello.ok() && !(answer.ok() && std::holds_alternative<ProbeRefuse>(*answer))) return Result::fail(hello);
  if (!answer.ok()) return Result::fail(answer);
  ProbeOutcome out;
  if (const auto* no = std::get_if<ProbeRefuse>(&*answer)) {
    out.refused = no->why;
    return out;
  }
  const auto* accept = std::get_if<ProbeAccept>(&*answer);
  if (!accept) return Result::fail(EPROTO, c.where() + " answered a hello with neither an accept nor a refusal");
  if (accept->length < target.bytes)
    return Result::fail(EPROTO, c.where() + " granted " + std::to_string(accept->length) + " bytes of the " +
                                    std::to_string(target.bytes) + " asked");
  auto transfer = writer.write(*accept);
  if (!transfer.ok()) return Result::fail(transfer);
  out.transfer = *transfer;
  const std::uint64_t digest = probe_digest(writer.buffer().first(target.bytes));
  if (Status s = c.send(ProbeCheck{target.bytes, digest}); !s.ok()) return Result::fail(s);
  auto verdict = c.receive();
  if (!verdict.ok()) return Result::fail(verdict);
  if (const auto* no = std::get_if<ProbeRefuse>(&*verdict)) {
    out.refused = no->why;
    return out;
  }
  const auto* v = std::get_if<ProbeVerdict>(&*verdict);
  if (!v) return Result::fail(EPROTO, c.where() + " answered a check with neither a verdict nor a refusal");
  out.match = v->match && v->digest == digest;
  return out;
}

}  // namespace railyard
