// DCB netlink payloads byte by byte (dcb_message.cc): requests as the kernel parses them,
// replies as it writes them.
#include <doctest/doctest.h>

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <string>

#include "kernel/dcb_message.h"

using namespace railyard;

namespace {

// Netlink is host-endian.
Bytes u16(std::uint16_t v) {
  Bytes b(2);
  std::memcpy(b.data(), &v, 2);
  return b;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes str(const std::string& s) { return Bytes(s.c_str(), s.c_str() + s.size() + 1); }

// An attribute as the kernel writes one: header, data, padding to 4 bytes.
Bytes attr(std::uint16_t type, const Bytes& data) {
  Bytes b = cat({u16(static_cast<std::uint16_t>(4 + data.size())), u16(type), data});
  b.resize((b.size() + 3) & ~std::size_t{3}, 0);
  return b;
}

// A nest as railyard (and iproute2) sends one: flagged NLA_F_NESTED.
Bytes nest(std::uint16_t type, const Bytes& data) {
  return attr(static_cast<std::uint16_t>(type | NLA_F_NESTED), data);
}

Bytes pfc_bytes(std::uint8_t cap, std::uint8_t en, std::uint8_t mbc, std::uint16_t delay) {
  Bytes b(136, 0);
  b[0] = cap;
  b[1] = en;
  b[2] = mbc;
  std::memcpy(&b[4], &delay, 2);
  b[8] = 7;   // requests[0]: counters the decoder ignores
  b[72] = 9;  // indications[0]
  return b;
}

const Bytes kIfname = str("ens1f0np0");  // 10 bytes with the NUL: padded to 12 in the attribute

}  // namespace

TEST_CASE("kernel structures have the sizes the encoder assumes") {
  CHECK(sizeof(ieee_pfc) == 136);
  CHECK(kIeeePfcSize == 136);
  CHECK(offsetof(ieee_pfc, delay) == 4);
  CHECK(offsetof(ieee_pfc, requests) == 8);
  CHECK(sizeof(dcb_app) == 4);
  CHECK(sizeof(dcbmsg) == 4);
  CHECK(DCB_CMD_IEEE_SET == 20);
  CHECK(DCB_CMD_IEEE_GET == 21);
  CHECK(DCB_CMD_IEEE_DEL == 27);
  CHECK(DCB_ATTR_IFNAME == 1);
  CHECK(DCB_ATTR_IEEE == 13);
  CHECK(DCB_ATTR_IEEE_PFC == 2);
  CHECK(DCB_ATTR_IEEE_APP_TABLE == 3);
  CHECK(DCB_ATTR_IEEE_APP == 1);
  CHECK(RTM_GETDCB == 78);
  CHECK(RTM_SETDCB == 79);
  CHECK(kDcbAppSelDscp == 5);
}

TEST_CASE("IEEE_GET request: dcbmsg, then the NUL-terminated interface name") {
  Bytes b = encode_ieee_get("ens1f0np0");
  // dcb_family AF_UNSPEC, cmd DCB_CMD_IEEE_GET, pad 0; DCB_ATTR_IFNAME of 4 + 10 bytes, 2 padding.
  CHECK(b == cat({{0, 21, 0, 0}, u16(14), u16(1), kIfname, {0, 0}}));
  CHECK(b.size() == 20);
}

TEST_CASE("IEEE_SET PFC request: priority 3 is pfc_en 0x08, delay and mbc as given") {
  IeeePfc pfc{8, 0x08, 1, 0x1234};
  Bytes b = encode_ieee_set_pfc("ens1f0np0", pfc);
  REQUIRE(b.size() == 4 + 16 + 4 + 4 + 136);
  CHECK(b[0] == AF_UNSPEC);
  CHECK(b[1] == DCB_CMD_IEEE_SET);
  CHECK(b[2] == 0);
  CHECK(b[3] == 0);
  // DCB_ATTR_IEEE nest at 20, holding DCB_ATTR_IEEE_PFC at 24, struct ieee_pfc at 28.
  // The nest is flagged NLA_F_NESTED (0x8000), as iproute2's dcb sends it.
  CHECK(Bytes(b.begin() + 20, b.begin() + 28) == cat({u16(144), u16(13 | NLA_F_NESTED), u16(140), u16(2)}));
  CHECK(b[28] == 8);                                            // pfc_cap
  CHECK(b[29] == 0x08);                                         // pfc_en: priority 3
  CHECK(b[30] == 1);                                            // mbc
  CHECK(Bytes(b.begin() + 32, b.begin() + 34) == u16(0x1234));  // delay kept
  // The whole message; the request's counters are zero.
  Bytes zero_counters = pfc_bytes(8, 0x08, 1, 0x1234);
  zero_counters[8] = zero_counters[72] = 0;
  CHECK(b == cat({{0, 20, 0, 0}, attr(1, kIfname), u16(144), u16(13 | NLA_F_NESTED), attr(2, zero_counters)}));
}

TEST_CASE("IEEE_SET app request: one DCB_ATTR_IEEE_APP per entry, {5, 3, 26} maps DSCP 26 to priority 3") {
  Bytes b = encode_ieee_set_apps("ens1f0np0", {{5, 3, 26}});
  Bytes app = cat({{5, 3}, u16(26)});
  CHECK(b == cat({{0, 20, 0, 0}, attr(1, kIfname), nest(13, nest(3, attr(1, app)))}));
  CHECK(b.size() == 36);
  CHECK(b[32] == 5);  // selector DSCP
  CHECK(b[33] == 3);  // priority

  Bytes two = encode_ieee_set_apps("ens1f0np0", {{5, 3, 26}, {5, 6, 48}});
  CHECK(
      two ==
      cat({{0, 20, 0, 0}, attr(1, kIfname), nest(13, nest(3, cat({attr(1, app), attr(1, cat({{5, 6}, u16(48)}))})))}));
}

TEST_CASE("IEEE_DEL app request: the same table under DCB_CMD_IEEE_DEL") {
  Bytes b = encode_ieee_del_apps("ens1f0np0", {{5, 0, 26}});
  CHECK(b == cat({{0, 27, 0, 0}, attr(1, kIfname), nest(13, nest(3, attr(1, cat({{5, 0}, u16(26)}))))}));
}

TEST_CASE("requests decode back to what was encoded") {
  IeeePfc pfc{8, 0x48, 0, 52};
  Outcome<IeeeState> p = decode_ieee_get_reply(encode_ieee_set_pfc("ens2f0np0", pfc));
  REQUIRE(p.ok());
  REQUIRE(p->pfc);
  CHECK(p->pfc->pfc_cap == 8);
  CHECK(p->pfc->pfc_en == 0x48);
  CHECK(p->pfc->mbc == 0);
  CHECK(p->pfc->delay == 52);
  CHECK(p->apps.empty());

  std::vector<DcbApp> apps;
  for (int d = 0; d < 64; ++d) apps.push_back({5, static_cast<std::uint8_t>(d >> 3), static_cast<std::uint16_t>(d)});
  Outcome<IeeeState> a = decode_ieee_get_reply(encode_ieee_set_apps("ens2f0np0", apps));
  REQUIRE(a.ok());
  CHECK(!a->pfc);
  CHECK(a->apps == apps);
}

TEST_CASE("an IEEE_GET reply as the kernel writes it") {
  Bytes ets(59, 0xee);  // struct ieee_ets: odd length, so the next attribute starts after padding
  Bytes table = cat({attr(1, cat({{5, 3}, u16(26)})), attr(2, Bytes(4, 0x55)),  // newer kernels' other entry kinds
                     attr(1, cat({{1, 4}, u16(0x8906)}))});
  Bytes reply = cat({{0, 21, 0, 0},
                     attr(1, kIfname),
                     attr(13, cat({attr(1, ets), attr(2, pfc_bytes(8, 0x08, 0, 32)), attr(3, table)})),
                     attr(14, {0x08})});  // DCB_ATTR_DCBX
  Outcome<IeeeState> s = decode_ieee_get_reply(reply);
  REQUIRE(s.ok());
  REQUIRE(s->pfc);
  CHECK(s->pfc->pfc_cap == 8);
  CHECK(s->pfc->pfc_en == 0x08);
  CHECK(s->pfc->delay == 32);
  CHECK(s->apps == std::vector<DcbApp>{{5, 3, 26}, {1, 4, 0x8906}});
}

TEST_CASE("a reply without PFC (a driver without ieee_getpfc) decodes with no pfc") {
  Outcome<IeeeState> s = decode_ieee_get_reply(cat({{0, 21, 0, 0}, attr(1, kIfname), attr(13, attr(3, {}))}));
  REQUIRE(s.ok());
  CHECK(!s->pfc);
  CHECK(s->apps.empty());
}

TEST_CASE("malformed replies fail with EPROTO") {
  auto fails = [](const Bytes& b) {
    Outcome<IeeeState> s = decode_ieee_get_reply(b);
    return !s.ok() && s.code() == EPROTO;
  };
  CHECK(fails({0, 21}));                                                   // shorter than dcbmsg
  CHECK(fails(cat({{0, 21, 0, 0}, attr(1, kIfname)})));                    // no DCB_ATTR_IEEE
  CHECK(fails(cat({{0, 21, 0, 0}, u16(40), u16(13), Bytes(8, 0)})));       // attribute longer than the message
  CHECK(fails(cat({{0, 21, 0, 0}, attr(13, attr(2, Bytes(5, 0)))})));      // ieee_pfc cut before delay
  CHECK(fails(cat({{0, 21, 0, 0}, attr(13, attr(3, attr(1, {5, 3})))})));  // dcb_app cut short
  CHECK(fails(cat({{0, 21, 0, 0}, u16(2), u16(13)})));                     // attribute length below its header
}

TEST_CASE("a SET reply's DCB_ATTR_IEEE u8 is the driver's result as a signed errno") {
  auto reply = [](std::uint8_t v) { return cat({{0, 20, 0, 0}, attr(13, {v})}); };
  Outcome<int> ok = decode_ieee_set_reply(reply(0));
  REQUIRE(ok.ok());
  CHECK(*ok == 0);

  Outcome<int> unsupported = decode_ieee_set_reply(reply(static_cast<std::uint8_t>(-EOPNOTSUPP)));  // 0xa1
  REQUIRE(unsupported.ok());
  CHECK(*unsupported == EOPNOTSUPP);
  CHECK(reply(static_cast<std::uint8_t>(-EOPNOTSUPP))[8] == 0xa1);

  Outcome<int> invalid = decode_ieee_set_reply(reply(0xea));
  REQUIRE(invalid.ok());
  CHECK(*invalid == EINVAL);

  Outcome<int> missing = decode_ieee_set_reply(cat({{0, 20, 0, 0}, attr(1, kIfname)}));
  CHECK(!missing.ok());
  CHECK(missing.code() == EPROTO);
}
