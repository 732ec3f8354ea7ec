#include "probe_protocol.h"

#include <algorithm>

namespace railyard {

namespace {

constexpr std::array<std::uint8_t, 8> kMagic = {'R', 'A', 'I', 'L', 'P', 'R', 'B', '1'};
constexpr std::uint32_t k24Bits = 0xffffff;

enum class Op : std::uint16_t { hello = 1, accept = 2, refuse = 3, check = 4, verdict = 5 };

class Writer {
 public:
  explicit Writer(ProbeBytes& b) : b_(b) {}
  void u16(std::size_t at, std::uint16_t v) { put(at, v, 2); }
  void u32(std::size_t at, std::uint32_t v) { put(at, v, 4); }
  void u64(std::size_t at, std::uint64_t v) { put(at, v, 8); }
  void gid(std::size_t at, const ProbeGid& g) { std::copy(g.begin(), g.end(), b_.begin() + static_cast<long>(at)); }
  void qp(std::size_t at, const ProbeQp& q) {
    u32(at, q.qpn);
    u32(at + 4, q.psn);
    gid(at + 8, q.gid);
  }

 private:
  void put(std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) b_[at + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
  }
  ProbeBytes& b_;
};

// Reads fields and remembers which bytes a frame uses, so that the rest can be required zero.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : b_(b) {}
  std::uint16_t u16(std::size_t at) { return static_cast<std::uint16_t>(get(at, 2)); }
  std::uint32_t u32(std::size_t at) { return static_cast<std::uint32_t>(get(at, 4)); }
  std::uint64_t u64(std::size_t at) { return get(at, 8); }
  ProbeGid gid(std::size_t at) {
    ProbeGid g;
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint8_t>(get(at + i, 1));
    return g;
  }
  ProbeQp qp(std::size_t at) { return {u32(at), u32(at + 4), gid(at + 8)}; }
  void mark(std::size_t at, std::size_t n) { std::fill_n(used_.begin() + static_cast<long>(at), n, true); }
  // The first byte that no field read and that is not zero, if any.
  std::optional<std::size_t> stray() const {
    for (std::size_t i = 0; i < b_.size(); ++i)
      if (!used_[i] && b_[i] != 0) return i;
    return std::nullopt;
  }

 private:
  std::uint64_t get(std::size_t at, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v = v << 8 | b_[at + i];
      used_[at + i] = true;
    }
    return v;
  }
  std::span<const std::uint8_t> b_;
  std::array<bool, kProbeFrameBytes> used_{};
};

Outcome<ProbeFrame> bad(const std::string& why) { return Outcome<ProbeFrame>::fail(EPROTO, "probe frame: " + why); }

std::optional<std::string> qp_error(const ProbeQp& q) {
  if (q.qpn > k24Bits || q.qpn == 0) return "QP number " + std::to_string(q.qpn) + " is not a 24-bit QP number";
  if (q.psn > k24Bits) return "PSN " + std::to_string(q.psn) + " does not fit 24 bits";
  return std::nullopt;
}

bool ib_mtu(std::uint16_t mtu) { return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096; }

Outcome<ProbeFrame> decode_body(Op op, Reader& r) {
  switch (op) {
    case Op::hello: {
      ProbeHello h{r.u16(12), r.u16(14), r.qp(16), r.u32(40)};
      if (!ib_mtu(h.mtu)) return bad("MTU " + std::to_string(h.mtu) + " is not 256, 512, 1024, 2048 or 4096");
      if (auto e = qp_error(h.qp)) return bad(*e);
      if (h.bytes == 0) return bad("a hello for 0 bytes");
      return ProbeFrame(h);
    }
    case Op::accept: {
      ProbeAccept a{r.qp(16), r.u32(40), r.u32(44), r.u64(48)};
      if (auto e = qp_error(a.qp)) return bad(*e);
      if (a.length == 0) return bad("an accept for 0 bytes");
      return ProbeFrame(a);
    }
    case Op::refuse: {
      std::uint16_t why = r.u16(12);
      if (why < 1 || why > 6) return bad("refusal " + std::to_string(why) + " is not one of 1 to 6");
      return ProbeFrame(ProbeRefuse{static_cast<ProbeRefusal>(why)});
    }
    case Op::check: return ProbeFrame(ProbeCheck{r.u32(16), r.u64(24)});
    case Op::verdict: {
      std::uint16_t match = r.u16(12);
      if (match > 1) return bad("verdict " + std::to_string(match) + " is neither 0 nor 1");
      return ProbeFrame(ProbeVerdict{match == 1, r.u64(24)});
    }
  }
  return bad("operation " + std::to_string(static_cast<unsigned>(op)) + " is not one of 1 to 5");
}

}  // namespace

ProbeBytes encode_probe_frame(const ProbeFrame& frame) {
  ProbeBytes b{};
  std::copy(kMagic.begin(), kMagic.end(), b.begin());
  Writer w(b);
  w.u16(8, kProbeVersion);
  std::visit(
      [&](const auto& f) {
        using T = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<T, ProbeHello>) {
          w.u16(10, static_cast<std::uint16_t>(Op::hello));
          w.u16(12, f.rail);
          w.u16(14, f.mtu);
          w.qp(16, f.qp);
          w.u32(40, f.bytes);
        } else if constexpr (std::is_same_v<T, ProbeAccept>) {
          w.u16(10, static_cast<std::uint16_t>(Op::accept));
          w.qp(16, f.qp);
          w.u32(40, f.rkey);
          w.u32(44, f.length);
          w.u64(48, f.address);
        } else if constexpr (std::is_same_v<T, ProbeRefuse>) {
          w.u16(10, static_cast<std::uint16_t>(Op::refuse));
          w.u16(12, static_cast<std::uint16_t>(f.why));
        } else if constexpr (std::is_same_v<T, ProbeCheck>) {
          w.u16(10, static_cast<std::uint16_t>(Op::check));
          w.u32(16, f.length);
          w.u64(24, f.digest);
        } else {
          w.u16(10, static_cast<std::uint16_t>(Op::verdict));
          w.u16(12, f.match ? 1 : 0);
          w.u64(24, f.digest);
        }
      },
      frame);
  return b;
}

Outcome<ProbeFrame> decode_probe_frame(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != kProbeFrameBytes)
    return bad(std::to_string(bytes.size()) + " bytes, not " + std::to_string(kProbeFrameBytes));
  if (!std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) return bad("not a railyard probe (magic)");
  Reader r(bytes);
  r.mark(0, kMagic.size());
  std::uint16_t version = r.u16(8);
  if (version != kProbeVersion)
    return bad("version " + std::to_string(version) + ", this railyard speaks " + std::to_string(kProbeVersion));
  std::uint16_t op = r.u16(10);
  if (op < 1 || op > 5) return bad("operation " + std::to_string(op) + " is not one of 1 to 5");
  auto frame = decode_body(static_cast<Op>(op), r);
  if (!frame.ok()) return frame;
  if (auto at = r.stray()) return bad("byte " + std::to_string(*at) + " is unused and not zero");
  return frame;
}

std::string probe_refusal_text(ProbeRefusal why) {
  switch (why) {
    case ProbeRefusal::busy: return "busy: the responder serves as many peers as it may at once";
    case ProbeRefusal::not_a_rail_peer: return "refused: the connection did not come from the rail's network";
    case ProbeRefusal::bad_request: return "refused: the responder could not read the request";
    case ProbeRefusal::too_large: return "refused: more bytes than the responder's slice holds";
    case ProbeRefusal::no_such_rail: return "refused: the responder has no such rail";
    case ProbeRefusal::internal: return "the responder could not set up its end (see its journal)";
  }
  return "refused";
}

}  // namespace railyard
