// The peer probe's frames (core/probe_protocol.cc): each one there and back, and every way a
// stranger's bytes are refused.
#include <doctest/doctest.h>

#include <vector>

#include "probe_protocol.h"

using namespace railyard;

namespace {

ProbeGid gid_of(std::uint8_t last) {
  ProbeGid g{};
  g[10] = g[11] = 0xff;  // an IPv4-mapped RoCE v2 GID: ::ffff:198.18.0.last
  g[12] = 198;
  g[13] = 18;
  g[15] = last;
  return g;
}

template <class T>
T round_trip(const T& frame) {
  ProbeBytes b = encode_probe_frame(frame);
  auto back = decode_probe_frame(b);
  REQUIRE_MESSAGE(back.ok(), back.error());
  REQUIRE(std::holds_alternative<T>(*back));
  return std::get<T>(*back);
}

ProbeBytes hello_bytes() { return encode_probe_frame(ProbeHello{1, 1024, {0x11, 0x222, gid_of(11)}, 1 << 20}); }

std::string error_of(std::span<const std::uint8_t> b) {
  auto f = decode_probe_frame(b);
  REQUIRE_FALSE(f.ok());
  CHECK(f.code() == EPROTO);
  return f.error();
}

}  // namespace

TEST_CASE("probe frames: each kind there and back") {
  ProbeHello h = round_trip(ProbeHello{2, 4096, {0xabcdef, 0x123456, gid_of(11)}, 64 << 20});
  CHECK(h.rail == 2);
  CHECK(h.mtu == 4096);
  CHECK(h.qp.qpn == 0xabcdef);
  CHECK(h.qp.psn == 0x123456);
  CHECK(h.qp.gid == gid_of(11));
  CHECK(h.bytes == 64u << 20);

  ProbeAccept a = round_trip(ProbeAccept{{0x17, 0, gid_of(1)}, 0xdeadbeef, 4096, 0x7f0012345000});
  CHECK(a.qp.qpn == 0x17);
  CHECK(a.rkey == 0xdeadbeef);
  CHECK(a.length == 4096);
  CHECK(a.address == 0x7f0012345000);

  CHECK(round_trip(ProbeRefuse{ProbeRefusal::busy}).why == ProbeRefusal::busy);
  ProbeCheck c = round_trip(ProbeCheck{4096, 0x0123456789abcdef});
  CHECK(c.length == 4096);
  CHECK(c.digest == 0x0123456789abcdef);
  ProbeVerdict v = round_trip(ProbeVerdict{true, 42});
  CHECK(v.match);
  CHECK(v.digest == 42);
}

TEST_CASE("probe frames: the layout on the wire is big-endian after the magic and version") {
  ProbeBytes b = hello_bytes();
  CHECK(std::string(b.begin(), b.begin() + 8) == "RAILPRB1");
  CHECK(b[8] == 0);
  CHECK(b[9] == 1);   // version 1
  CHECK(b[11] == 1);  // hello
  CHECK(b[13] == 1);  // rail 1
  CHECK(b[14] == 0x04);
  CHECK(b[15] == 0x00);  // MTU 1024
  CHECK(b[19] == 0x11);  // QPN
}

TEST_CASE("probe frames: a stranger's bytes are refused, saying what is wrong") {
  ProbeBytes good = hello_bytes();
  std::vector<std::uint8_t> shorter(good.begin(), good.end() - 1);
  CHECK(error_of(shorter) == "probe frame: 63 bytes, not 64");
  CHECK(error_of({}) == "probe frame: 0 bytes, not 64");

  ProbeBytes b = good;
  b[0] = 'G';  // "GET / HTTP/1.1" from a scanner
  CHECK(error_of(b).find("not a railyard probe") != std::string::npos);
  b = good;
  b[9] = 2;
  CHECK(error_of(b).find("version 2, this railyard speaks 1") != std::string::npos);
  b = good;
  b[11] = 9;
  CHECK(error_of(b).find("operation 9") != std::string::npos);
  b = good;
  b[63] = 1;  // past every field of a hello
  CHECK(error_of(b).find("byte 63 is unused and not zero") != std::string::npos);
  b = good;
  b[16] = 1;  // QPN above 24 bits
  CHECK(error_of(b).find("is not a 24-bit QP number") != std::string::npos);
  b = good;
  b[14] = 0x03;  // MTU 768
  CHECK(error_of(b).find("MTU 768") != std::string::npos);
  b = encode_probe_frame(ProbeHello{1, 1024, {0x11, 0x222, gid_of(11)}, 1});
  b[43] = 0;  // 0 bytes
  CHECK(error_of(b).find("0 bytes") != std::string::npos);
  b = encode_probe_frame(ProbeRefuse{ProbeRefusal::internal});
  b[13] = 7;
  CHECK(error_of(b).find("refusal 7") != std::string::npos);
  b = encode_probe_frame(ProbeVerdict{false, 1});
  b[13] = 2;
  CHECK(error_of(b).find("verdict 2") != std::string::npos);
  // A check's unused bytes (12-15) are held to zero as well.
  b = encode_probe_frame(ProbeCheck{1, 1});
  b[12] = 1;
  CHECK(error_of(b).find("byte 12") != std::string::npos);
}

TEST_CASE("probe frames: every single-byte corruption of a hello decodes to a valid frame or a clean error") {
  ProbeBytes good = hello_bytes();
  for (std::size_t i = 0; i < good.size(); ++i)
    for (int v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      ProbeBytes b = good;
      b[i] = static_cast<std::uint8_t>(v);
      auto f = decode_probe_frame(b);
      if (!f.ok()) CHECK(f.error().rfind("probe frame: ", 0) == 0);
    }
}

TEST_CASE("probe refusals: each says why in words") {
  for (auto why : {ProbeRefusal::busy, ProbeRefusal::not_a_rail_peer, ProbeRefusal::bad_request,
                   ProbeRefusal::too_large, ProbeRefusal::no_such_rail, ProbeRefusal::internal})
    CHECK(probe_refusal_text(why).size() > 10);
  CHECK(probe_refusal_text(ProbeRefusal::busy).rfind("busy", 0) == 0);
}
