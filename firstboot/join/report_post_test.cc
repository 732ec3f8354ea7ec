// The report POST over libcurl against a one-shot HTTP server on 127.0.0.1: the body, the
// headers, the status handling, and a refused connection.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "join/join.h"

using namespace railyard;

namespace {

// Accepts one connection on 127.0.0.1, reads the whole request, answers `status`.
class OneShotServer {
 public:
  explicit OneShotServer(int status) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    REQUIRE(::listen(fd_, 1) == 0);
    thread_ = std::thread([this, status] { serve(status); });
  }
  ~OneShotServer() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/reports"; }
  std::string request() {
    thread_.join();
    return request_;
  }

 private:
  void serve(int status) {
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    timeval tv{5, 0};
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    std::size_t want = std::string::npos;
    for (;;) {
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      request_.append(buf, static_cast<std::size_t>(n));
      auto end = request_.find("\r\n\r\n");
      if (end != std::string::npos && want == std::string::npos) {
        auto cl = request_.find("Content-Length: ");
        want = end + 4 + (cl != std::string::npos ? std::stoul(request_.substr(cl + 16)) : 0);
      }
      if (want != std::string::npos && request_.size() >= want) break;
    }
    std::string reply = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
    ::close(c);
  }
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string request_;
};

}  // namespace

TEST_CASE("post: JSON body, content type and bearer token reach the server; 201 is success") {
  OneShotServer server(201);
  NativeJoinEffects fx;
  std::string err = fx.post(server.url(), R"({"schema":1,"result":"pass"})", "", "s3cret", 5000);
  CHECK(err == "");
  std::string req = server.request();
  CHECK(req.rfind("POST /api/v1/reports HTTP/1.1\r\n", 0) == 0);
  CHECK(req.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(req.find("Authorization: Bearer s3cret\r\n") != std::string::npos);
  CHECK(req.substr(req.size() - 28) == R"({"schema":1,"result":"pass"})");
}

TEST_CASE("post: a server error is reported with its status; no token, no Authorization header") {
  OneShotServer server(503);
  NativeJoinEffects fx;
  std::string err = fx.post(server.url(), "{}", "", "", 5000);
  CHECK(err == server.url() + ": HTTP 503");
  CHECK(server.request().find("Authorization") == std::string::npos);
}

TEST_CASE("post: nothing listening is an error, quickly") {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);  // the port is now free: nothing listens there
  NativeJoinEffects fx;
  std::string err = fx.post("http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/", "{}", "", "", 2000);
  CHECK(err.find("Couldn't connect to server") != std::string::npos);
}
