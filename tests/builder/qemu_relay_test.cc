// builder/qemu/relay.cc: a guest connection (here a socket pair) relayed to a TCP service
// on 127.0.0.1, both ways, until the service has answered and closed.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <time.h>

#include <filesystem>
#include <string>
#include <thread>

#include "qemu/relay.h"
#include "temp_dir.h"

using namespace railyard;

namespace {

// A one-shot echo service that answers "got: <request>" and closes.
struct EchoService {
  int listener = -1;
  int port = 0;
  std::thread thread;
  EchoService() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    REQUIRE(::listen(listener, 1) == 0);
    thread = std::thread([this] {
      int c = ::accept(listener, nullptr, nullptr);
      std::string request;
      char buf[256];
      ssize_t n = 0;
      while ((n = ::read(c, buf, sizeof buf)) > 0)
        request.append(buf, static_cast<std::size_t>(n));  // until the guest's EOF
      std::string answer = "got: " + request;
      REQUIRE(::write(c, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()));
      ::close(c);
    });
  }
  ~EchoService() {
    if (thread.joinable()) thread.join();
    ::close(listener);
  }
};

}  // namespace

TEST_CASE("the relay carries the request and the answer, then ends") {
  EchoService service;
  int guest[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, guest) == 0);
  std::string request = "POST /api/v1/reports";
  REQUIRE(::write(guest[0], request.data(), request.size()) == static_cast<ssize_t>(request.size()));
  ::shutdown(guest[0], SHUT_WR);
  int rc = relay("127.0.0.1:" + std::to_string(service.port), guest[1], guest[1]);
  CHECK(rc == 0);
  std::string answer;
  char buf[256];
  ssize_t n = 0;
  while ((n = ::read(guest[0], buf, sizeof buf)) > 0) answer.append(buf, static_cast<std::size_t>(n));
  CHECK(answer == "got: POST /api/v1/reports");
  ::close(guest[0]);
  ::close(guest[1]);
}

TEST_CASE("nothing listening: the relay says so and the guest's connection ends") {
  int guest[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, guest) == 0);
  CHECK(relay("127.0.0.1:1", guest[1], guest[1]) == 1);
  CHECK(relay("localhost", guest[1], guest[1]) == 1);
  ::close(guest[0]);
  ::close(guest[1]);
}

TEST_CASE("a controller outage: the first connection starts it, every one within it is refused") {
  railyard::test::TempDir dir;
  const std::string state = dir / "controller-outage";
  CHECK(relay_in_outage(state, 15));  // the first: the outage begins
  CHECK(std::filesystem::exists(state));
  CHECK(relay_in_outage(state, 15));  // the next, at once: still refused
  // Begun 20 s before the host's monotonic clock reads now: a 15 s outage is over, a 60 s one not.
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  dir.write("earlier", std::to_string(static_cast<double>(t.tv_sec) - 20) + "\n");
  CHECK_FALSE(relay_in_outage(dir / "earlier", 15));
  CHECK(relay_in_outage(dir / "earlier", 60));
  // Created by a connection that has not written the time yet: the outage has just begun.
  dir.write("empty", "");
  CHECK(relay_in_outage(dir / "empty", 15));
}
