#include "qmp.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace railyard {

namespace {

using Clock = std::chrono::steady_clock;

class Connection {
 public:
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path, Clock::time_point deadline) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return Status::fail(path + ": socket path too long");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    for (;;) {
      fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) return Status::fail(std::string("socket: ") + std::strerror(errno));
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return success();
      int e = errno;
      ::close(fd_);
      fd_ = -1;
      if (Clock::now() >= deadline) return Status::fail(path + ": " + std::strerror(e));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  // The next message that is not an asynchronous event.
  Outcome<nlohmann::json> reply(Clock::time_point deadline) {
    for (;;) {
      auto line = read_line(deadline);
      if (!line.ok()) return Outcome<nlohmann::json>::fail(line.error());
      auto j = nlohmann::json::parse(*line, nullptr, false);
      if (j.is_discarded()) return Outcome<nlohmann::json>::fail("QMP sent something that is not JSON: " + *line);
      if (!j.contains("event")) return j;
    }
  }
  Status send(const nlohmann::json& j) {
    std::string text = j.dump() + "\n";
    if (::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(text.size()))
      return Status::fail(std::string("QMP send: ") + std::strerror(errno));
    return success();
  }

 private:
  Outcome<std::string> read_line(Clock::time_point deadline) {
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return Outcome<std::string>::fail("QMP: no answer in time");
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return Outcome<std::string>::fail("QMP: QEMU closed the connection");
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }
  int fd_ = -1;
  std::string buffer_;
};

std::string error_text(const nlohmann::json& reply) {
  if (reply.contains("error") && reply["error"].is_object()) return reply["error"].value("desc", reply.dump());
  return reply.dump();
}

}  // namespace

nlohmann::json qmp_set_link(const std::string& device, bool up) {
  return {{"execute", "set_link"}, {"arguments", {{"name", device}, {"up", up}}}};
}

Status qmp_run(const std::string& socket_path, const std::vector<nlohmann::json>& commands, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  Connection c;
  if (auto s = c.open(socket_path, deadline); !s.ok()) return Status::fail(s, "QMP");
  auto greeting = c.reply(deadline);
  if (!greeting.ok()) return Status::fail(greeting.error());
  if (!greeting->contains("QMP")) return Status::fail("QMP: unexpected greeting " + greeting->dump());
  std::vector<nlohmann::json> all{{{"execute", "qmp_capabilities"}}};
  all.insert(all.end(), commands.begin(), commands.end());
  for (const auto& cmd : all) {
    if (auto s = c.send(cmd); !s.ok()) return s;
    auto r = c.reply(deadline);
    if (!r.ok()) return Status::fail(r.error());
    if (!r->contains("return")) return Status::fail("QMP " + cmd.value("execute", "?") + ": " + error_text(*r));
  }
  return success();
}

}  // namespace railyard
