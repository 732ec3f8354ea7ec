// The probe responder (probe/responder.cc) over loopback, its RDMA side in memory: a peer
// that does everything right, and the strangers, floods and stallers it must refuse without
// being held up by them.
#include "probe/responder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "inventory.h"
#include "support/probe_rig.h"

using namespace railyard;
using namespace std::chrono_literals;
using railyard::test::Running;

namespace {

int connect_to(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

void send_bytes(int fd, std::span<const std::uint8_t> b) {
  REQUIRE(::send(fd, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size()));
}

// The next frame, or why there is none ("closed" when the responder closed without one).
Outcome<ProbeFrame> receive(int fd) {
  ProbeBytes b{};
  std::size_t got = 0;
  while (got < b.size()) {
    ssize_t n = ::recv(fd, b.data() + got, b.size() - got, 0);
    if (n == 0) return Outcome<ProbeFrame>::fail("closed");
    if (n < 0) return Outcome<ProbeFrame>::fail(std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  return decode_probe_frame(b);
}

ProbeHello hello(std::uint32_t bytes, std::uint16_t rail = 0) { return ProbeHello{rail, 1024, {0x42, 1, {}}, bytes}; }

ProbeRefusal refusal_of(int fd) {
  auto f = receive(fd);
  REQUIRE_MESSAGE(f.ok(), f.error());
  REQUIRE(std::holds_alternative<ProbeRefuse>(*f));
  return std::get<ProbeRefuse>(*f).why;
}

// What a well-behaved node does: hello, the write (here: a copy into the slice), the check.
ProbeVerdict probe(Running& r, const std::vector<std::uint8_t>& data, std::uint8_t corrupt = 0) {
  int fd = connect_to(r.port());
  send_bytes(fd, encode_probe_frame(hello(static_cast<std::uint32_t>(data.size()))));
  auto accepted = receive(fd);
  REQUIRE_MESSAGE(accepted.ok(), accepted.error());
  REQUIRE(std::holds_alternative<ProbeAccept>(*accepted));
  const ProbeAccept& a = std::get<ProbeAccept>(*accepted);
  CHECK(a.length == data.size());
  std::size_t slice = a.rkey - 1;
  std::copy(data.begin(), data.end(), r.slices.memory[slice].begin());
  r.slices.memory[slice][0] ^= corrupt;
  send_bytes(fd, encode_probe_frame(ProbeCheck{static_cast<std::uint32_t>(data.size()), probe_digest(data)}));
  auto verdict = receive(fd);
  REQUIRE_MESSAGE(verdict.ok(), verdict.error());
  REQUIRE(std::holds_alternative<ProbeVerdict>(*verdict));
  CHECK_FALSE(receive(fd).ok());  // and closed
  ::close(fd);
  return std::get<ProbeVerdict>(*verdict);
}

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 131 + 7);
  return v;
}

}  // namespace

TEST_CASE("probe responder: a peer's write is compared, the slice closed after, each outcome counted") {
  Running r;
  ProbeVerdict v = probe(r, pattern(4000));
  CHECK(v.match);
  CHECK(v.digest == probe_digest(pattern(4000)));
  CHECK_FALSE(probe(r, pattern(4000), 0x01).match);  // one bit flipped on the way
  r.finish();
  REQUIRE(r.served.ok());
  CHECK(r.responder->counts().verified == 1);
  CHECK(r.responder->counts().mismatched == 1);
  CHECK(r.slices.log ==
        std::vector<std::string>{"open rail 0 slice 0", "close slice 0", "open rail 0 slice 0", "close slice 0"});
}

TEST_CASE("probe responder: strangers get a refusal and are closed") {
  Running r;
  SUBCASE("an HTTP request") {
    int fd = connect_to(r.port());
    std::string get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    get.resize(kProbeFrameBytes, ' ');
    send_bytes(fd, std::span(reinterpret_cast<const std::uint8_t*>(get.data()), get.size()));
    CHECK(refusal_of(fd) == ProbeRefusal::bad_request);
    CHECK_FALSE(receive(fd).ok());
    ::close(fd);
  }
  SUBCASE("a check before any hello") {
    int fd = connect_to(r.port());
    send_bytes(fd, encode_probe_frame(ProbeCheck{10, 1}));
    CHECK(refusal_of(fd) == ProbeRefusal::bad_request);
    ::close(fd);
  }
  SUBCASE("more bytes than a slice holds") {
    int fd = connect_to(r.port());
    send_bytes(fd, encode_probe_frame(hello(4097)));
    CHECK(refusal_of(fd) == ProbeRefusal::too_large);
    ::close(fd);
  }
  SUBCASE("a rail this responder does not have on this address") {
    int fd = connect_to(r.port());
    send_bytes(fd, encode_probe_frame(hello(10, 3)));
    CHECK(refusal_of(fd) == ProbeRefusal::no_such_rail);
    ::close(fd);
  }
  SUBCASE("a check for more than the hello asked") {
    int fd = connect_to(r.port());
    send_bytes(fd, encode_probe_frame(hello(10)));
    REQUIRE(receive(fd).ok());
    send_bytes(fd, encode_probe_frame(ProbeCheck{11, 1}));
    CHECK(refusal_of(fd) == ProbeRefusal::bad_request);
    ::close(fd);
  }
  // After each, a good peer is still served.
  CHECK(probe(r, pattern(64)).match);
}

TEST_CASE("probe responder: a connection from outside the rail's network is refused") {
  Running r("198.18.0.0/24");
  int fd = connect_to(r.port());
  CHECK(refusal_of(fd) == ProbeRefusal::not_a_rail_peer);
  CHECK_FALSE(receive(fd).ok());
  ::close(fd);
  r.finish();
  CHECK(r.slices.log.empty());  // no queue pair was ever made for it
  CHECK(r.responder->counts().outsiders == 1);
}

TEST_CASE("probe responder: peers beyond its slices are told busy; stallers are dropped at their deadline") {
  Running r("127.0.0.0/8", 300ms, 2);
  // Two that connect and say nothing, one that sends half a hello: the third is busy.
  int a = connect_to(r.port()), b = connect_to(r.port());
  ProbeBytes half = encode_probe_frame(hello(10));
  send_bytes(b, std::span(half).first(20));
  std::this_thread::sleep_for(50ms);
  int c = connect_to(r.port());
  CHECK(refusal_of(c) == ProbeRefusal::busy);
  ::close(c);
  // Both dropped once their time is up, without a word; then a good peer is served.
  auto t0 = std::chrono::steady_clock::now();
  CHECK(receive(a).error() == "closed");
  CHECK(receive(b).error() == "closed");
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  ::close(a);
  ::close(b);
  CHECK(probe(r, pattern(64)).match);
}

TEST_CASE("probe responder: a flood of connections is refused one by one, and the responder still serves") {
  Running r("127.0.0.0/8", 2000ms, 2);
  std::vector<int> held = {connect_to(r.port()), connect_to(r.port())};
  std::this_thread::sleep_for(50ms);
  for (int i = 0; i < 200; ++i) {
    int fd = connect_to(r.port());
    CHECK(refusal_of(fd) == ProbeRefusal::busy);
    ::close(fd);
  }
  for (int fd : held) ::close(fd);
  std::this_thread::sleep_for(100ms);  // the responder sees both closed
  CHECK(probe(r, pattern(64)).match);
  r.finish();
  CHECK(r.responder->counts().busy == 200);
  CHECK(r.responder->counts().verified == 1);
}

TEST_CASE("probe responder: a slice it cannot open is an internal refusal, the slice given back") {
  Running r;
  r.slices.fail_open = true;
  int fd = connect_to(r.port());
  send_bytes(fd, encode_probe_frame(hello(10)));
  CHECK(refusal_of(fd) == ProbeRefusal::internal);
  ::close(fd);
  r.slices.fail_open = false;
  CHECK(probe(r, pattern(64)).match);
}

TEST_CASE("responder rails: each rail's address, answered from its subnet; routed rails from the fabric") {
  Recipe r;
  r.addressing.subnets = {"198.18.0.0/24", "198.18.1.0/24"};
  NodeEntry self;
  self.rails = {"198.18.0.100", "198.18.1.100/24"};
  auto rails = responder_rails(r, self);
  REQUIRE(rails.size() == 2);
  CHECK(rails[1].index == 1);
  CHECK(rails[1].address.str() == "198.18.1.100");
  REQUIRE(rails[1].peers.size() == 1);
  CHECK(rails[1].peers[0].str() == "198.18.1.0/24");

  r.routing.mode = RoutingMode::bgp_unnumbered;
  r.routing.fabric_prefixes = {"198.18.0.0/16", "10.1.0.0/16"};
  rails = responder_rails(r, self);
  REQUIRE(rails.size() == 2);
  CHECK(rails[0].peers.size() == 2);
}

TEST_CASE("a rail address's RoCE v2 GID is found on whichever device carries it") {
  Inventory inv;
  RdmaDevice d;
  d.name = "rxe0";
  RdmaPort p;
  p.gids = {{0, "fe80:0000:0000:0000:5054:00ff:fe00:0006", "RoCE v2", "enp0s6"},
            {1, "0000:0000:0000:0000:0000:ffff:c612:0064", "IB/RoCE v1", "enp0s6.100"},
            {2, "0000:0000:0000:0000:0000:ffff:c612:0064", "RoCE v2", "enp0s6.100"},
            {3, "0000:0000:0000:0000:0000:ffff:c612:0164", "RoCE v2", "enp0s6.100"}};
  d.ports = {p};
  inv.rdma = {d};
  auto g = roce_v2_gid_of(inv, "198.18.1.100");
  REQUIRE(g);
  CHECK(g->device == "rxe0");
  CHECK(g->index == 3);
  CHECK(roce_v2_gid_of(inv, "198.18.0.100")->index == 2);  // the v2 entry, not v1's
  CHECK(!roce_v2_gid_of(inv, "198.18.2.100"));
  CHECK(!roce_v2_gid_of(inv, "not an address"));
}
