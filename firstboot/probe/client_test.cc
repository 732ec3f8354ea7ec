// The node's end of the peer probe (probe/client.cc) against the real responder over
// loopback, both RDMA sides in memory: the write lands in the slice the responder granted.
#include "probe/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "support/probe_rig.h"

using namespace railyard;
using namespace std::chrono_literals;
using railyard::test::Running;

namespace {

// The node's RDMA side in memory: "writes" by copying its buffer into the responder's slice.
struct MemoryWriter : ProbeWriter {
  test::MemorySlices* slices = nullptr;
  std::vector<std::uint8_t> data;
  std::uint8_t corrupt = 0;  // flipped in the slice's first byte on the way
  bool fail_write = false;
  Outcome<ProbeQp> prepare(std::uint32_t bytes) override {
    data.resize(bytes);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
    return ProbeQp{0x42, 1, {}};
  }
  Outcome<ProbeTransfer> write(const ProbeAccept& accept) override {
    if (fail_write) return Outcome<ProbeTransfer>::fail(EIO, "RDMA WRITE: remote access error");
    auto& slice = slices->memory[accept.rkey - 1];
    std::copy(data.begin(), data.end(), slice.begin());
    slice[0] ^= corrupt;
    return ProbeTransfer{12.5, 8.0};
  }
  std::span<const std::uint8_t> buffer() const override { return data; }
};

ProbeTarget target(std::uint16_t port, std::uint32_t bytes = 1000, std::uint16_t rail = 0) {
  ProbeTarget t;
  t.local = *parse_ipv4("127.0.0.1");
  t.peer = *parse_ipv4("127.0.0.1");
  t.port = port;
  t.rail = rail;
  t.bytes = bytes;
  t.timeout = 5000ms;
  return t;
}

}  // namespace

TEST_CASE("peer probe: the write lands in the granted slice and the responder agrees") {
  Running r;
  MemoryWriter w;
  w.slices = &r.slices;
  auto out = probe_peer(target(r.port()), w);
  REQUIRE_MESSAGE(out.ok(), out.error());
  CHECK_FALSE(out->refused);
  CHECK(out->match);
  CHECK(out->transfer.gbps == 12.5);
  CHECK(out->transfer.latency_us == 8.0);
}

TEST_CASE("peer probe: what arrived differs from what was written") {
  Running r;
  MemoryWriter w;
  w.slices = &r.slices;
  w.corrupt = 0x10;
  auto out = probe_peer(target(r.port()), w);
  REQUIRE(out.ok());
  CHECK_FALSE(out->match);
}

TEST_CASE("peer probe: a refusal is an outcome, with its reason") {
  Running r;
  MemoryWriter w;
  w.slices = &r.slices;
  auto too_big = probe_peer(target(r.port(), 5000), w);
  REQUIRE(too_big.ok());
  CHECK(too_big->refused == ProbeRefusal::too_large);
  auto wrong_rail = probe_peer(target(r.port(), 100, 2), w);
  REQUIRE(wrong_rail.ok());
  CHECK(wrong_rail->refused == ProbeRefusal::no_such_rail);
}

TEST_CASE("peer probe: no responder, or a failed write, is an error saying so") {
  MemoryWriter w;
  std::uint16_t closed_port;
  {
    Running r;
    closed_port = r.port();
  }
  auto none = probe_peer(target(closed_port), w);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().find("connect to 127.0.0.1:" + std::to_string(closed_port)) != std::string::npos);
  CHECK(none.code() == ECONNREFUSED);

  Running r;
  w.slices = &r.slices;
  w.fail_write = true;
  auto failed = probe_peer(target(r.port()), w);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error() == "RDMA WRITE: remote access error");
}

TEST_CASE("peer probe: a responder that never answers runs into the timeout") {
  // A listener that accepts (the kernel does, from its backlog) and never reads.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  MemoryWriter w;
  ProbeTarget t = target(ntohs(a.sin_port));
  t.timeout = 300ms;
  auto out = probe_peer(t, w);
  REQUIRE_FALSE(out.ok());
  CHECK(out.code() == ETIMEDOUT);
  CHECK(out.error().find("no answer within 300 ms") != std::string::npos);
  ::close(fd);
}
