#include "kernel/dcb_message.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace railyard {

static_assert(sizeof(ieee_pfc) == kIeeePfcSize);
static_assert(kDcbAppSelDscp == IEEE_8021QAZ_APP_SEL_DSCP);
static_assert(kPfcCap == IEEE_8021QAZ_MAX_TCS);
static_assert(sizeof(dcb_app) == 4);
static_assert(sizeof(dcbmsg) == 4);

namespace {

void append(Bytes& b, const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  b.insert(b.end(), p, p + len);
}

void pad(Bytes& b) { b.resize(NLA_ALIGN(b.size()), 0); }

void put_dcbmsg(Bytes& b, std::uint8_t cmd) {
  dcbmsg m{};
  m.dcb_family = AF_UNSPEC;
  m.cmd = cmd;
  append(b, &m, sizeof m);
}

void put_attr(Bytes& b, std::uint16_t type, const void* data, std::size_t len) {
  nlattr h{static_cast<std::uint16_t>(NLA_HDRLEN + len), type};
  append(b, &h, sizeof h);
  append(b, data, len);
  pad(b);
}

void put_ifname(Bytes& b, const std::string& ifname) {
  put_attr(b, DCB_ATTR_IFNAME, ifname.c_str(), ifname.size() + 1);  // NUL-terminated
}

// Nests carry NLA_F_NESTED, as iproute2's dcb sets it (libmnl's mnl_attr_nest_start). The
// kernel's DCB parser masks the flag off (nla_parse_nested_deprecated), so it takes both,
// but a stricter parser would refuse a nest without it.
std::size_t begin_nest(Bytes& b, std::uint16_t type) {
  std::size_t at = b.size();
  nlattr h{0, static_cast<std::uint16_t>(type | NLA_F_NESTED)};
  append(b, &h, sizeof h);
  return at;
}

void end_nest(Bytes& b, std::size_t at) {
  auto len = static_cast<std::uint16_t>(b.size() - at);
  std::memcpy(&b[at], &len, sizeof len);
}

Bytes encode_apps(std::uint8_t cmd, const std::string& ifname, const std::vector<DcbApp>& apps) {
  Bytes b;
  put_dcbmsg(b, cmd);
  put_ifname(b, ifname);
  std::size_t ieee = begin_nest(b, DCB_ATTR_IEEE);
  std::size_t table = begin_nest(b, DCB_ATTR_IEEE_APP_TABLE);
  for (const DcbApp& a : apps) {
    dcb_app app{};
    app.selector = a.selector;
    app.priority = a.priority;
    app.protocol = a.protocol;
    put_attr(b, DCB_ATTR_IEEE_APP, &app, sizeof app);
  }
  end_nest(b, table);
  end_nest(b, ieee);
  return b;
}

struct Attr {
  std::uint16_t type = 0;
  const std::uint8_t* data = nullptr;
  std::size_t len = 0;
};

// Calls f(Attr) for each attribute in [p, p+n); false when one overruns the buffer.
template <class F>
bool for_each_attr(const std::uint8_t* p, std::size_t n, F f) {
  while (n >= NLA_HDRLEN) {
    nlattr h;
    std::memcpy(&h, p, sizeof h);
    if (h.nla_len < NLA_HDRLEN || h.nla_len > n) return false;
    auto type = static_cast<std::uint16_t>(h.nla_type & NLA_TYPE_MASK);
    f(Attr{type, p + NLA_HDRLEN, std::size_t{h.nla_len} - NLA_HDRLEN});
    std::size_t step = NLA_ALIGN(h.nla_len);
    if (step >= n) return true;
    p += step;
    n -= step;
  }
  return n == 0;
}

Status malformed(const std::string& why) { return Status::fail(EPROTO, "malformed DCB reply: " + why); }

}  // namespace

Bytes encode_ieee_get(const std::string& ifname) {
  Bytes b;
  put_dcbmsg(b, DCB_CMD_IEEE_GET);
  put_ifname(b, ifname);
  return b;
}

Bytes encode_ieee_set_pfc(const std::string& ifname, const IeeePfc& pfc) {
  ieee_pfc raw{};
  raw.pfc_cap = pfc.pfc_cap;
  raw.pfc_en = pfc.pfc_en;
  raw.mbc = pfc.mbc;
  raw.delay = pfc.delay;
  Bytes b;
  put_dcbmsg(b, DCB_CMD_IEEE_SET);
  put_ifname(b, ifname);
  std::size_t ieee = begin_nest(b, DCB_ATTR_IEEE);
  put_attr(b, DCB_ATTR_IEEE_PFC, &raw, sizeof raw);
  end_nest(b, ieee);
  return b;
}

Bytes encode_ieee_set_apps(const std::string& ifname, const std::vector<DcbApp>& apps) {
  return encode_apps(DCB_CMD_IEEE_SET, ifname, apps);
}

Bytes encode_ieee_del_apps(const std::string& ifname, const std::vector<DcbApp>& apps) {
  return encode_apps(DCB_CMD_IEEE_DEL, ifname, apps);
}

// The dcbmsg command is not checked: a SET request decodes the same way (the tests' round trips).
Outcome<IeeeState> decode_ieee_get_reply(const Bytes& payload) {
  if (payload.size() < sizeof(dcbmsg)) return Outcome<IeeeState>::fail(malformed("shorter than struct dcbmsg"));
  IeeeState state;
  bool have_ieee = false;
  std::string why;  // the first problem found; empty while all is well
  auto fail = [&](const char* w) {
    if (why.empty()) why = w;
  };
  auto on_app = [&](const Attr& a) {
    if (a.type != DCB_ATTR_IEEE_APP) return;  // newer kernels add other entry kinds
    if (a.len < sizeof(dcb_app)) return fail("short DCB_ATTR_IEEE_APP");
    dcb_app app;
    std::memcpy(&app, a.data, sizeof app);
    state.apps.push_back({app.selector, app.priority, app.protocol});
  };
  auto on_ieee = [&](const Attr& a) {
    if (a.type == DCB_ATTR_IEEE_PFC) {
      if (a.len < offsetof(ieee_pfc, delay) + sizeof(ieee_pfc::delay)) return fail("short DCB_ATTR_IEEE_PFC");
      ieee_pfc raw{};
      std::memcpy(&raw, a.data, std::min(a.len, sizeof raw));
      state.pfc = IeeePfc{raw.pfc_cap, raw.pfc_en, raw.mbc, raw.delay};
    } else if (a.type == DCB_ATTR_IEEE_APP_TABLE) {
      if (!for_each_attr(a.data, a.len, on_app)) fail("bad DCB_ATTR_IEEE_APP_TABLE");
    }
  };
  bool whole = for_each_attr(payload.data() + sizeof(dcbmsg), payload.size() - sizeof(dcbmsg), [&](const Attr& a) {
    if (a.type != DCB_ATTR_IEEE) return;
    have_ieee = true;
    if (!for_each_attr(a.data, a.len, on_ieee)) fail("bad DCB_ATTR_IEEE nest");
  });
  if (!whole) return Outcome<IeeeState>::fail(malformed("attribute overruns the message"));
  if (!why.empty()) return Outcome<IeeeState>::fail(malformed(why));
  if (!have_ieee) return Outcome<IeeeState>::fail(malformed("no DCB_ATTR_IEEE"));
  return Outcome<IeeeState>(std::move(state));
}

Outcome<int> decode_ieee_set_reply(const Bytes& payload) {
  if (payload.size() < sizeof(dcbmsg)) return Outcome<int>::fail(malformed("shorter than struct dcbmsg"));
  std::optional<int> err;
  bool whole = for_each_attr(payload.data() + sizeof(dcbmsg), payload.size() - sizeof(dcbmsg), [&](const Attr& a) {
    if (a.type == DCB_ATTR_IEEE && a.len >= 1) err = -static_cast<std::int8_t>(a.data[0]);
  });
  if (!whole) return Outcome<int>::fail(malformed("attribute overruns the message"));
  if (!err) return Outcome<int>::fail(malformed("no DCB_ATTR_IEEE result"));
  return Outcome<int>(*err);
}

}  // namespace railyard
