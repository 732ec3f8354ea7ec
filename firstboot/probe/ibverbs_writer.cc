#include "probe/ibverbs_writer.h"

#include <algorithm>

namespace railyard {

namespace {

constexpr int kDepth = 16;                   // WRITEs in flight during the timed transfer
constexpr std::uint32_t kChunk = 64 * 1024;  // bytes per WRITE
constexpr std::uint32_t kSmall = 64;         // the latency probe's WRITE
constexpr int kRoundTrips = 9;               // the latency is their median
// A round trip through one leaf is a few microseconds on hardware: spinning that long is
// cheaper than a sleep and a wake-up, which would be most of what is measured.
constexpr std::chrono::microseconds kSpin{200};

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: a cheap, well-spread pattern
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

IbverbsWriter::IbverbsWriter(std::string rdma_device, int gid_index, int path_mtu, std::chrono::milliseconds timeout,
                             std::uint64_t seed)
    : device_name_(std::move(rdma_device)),
      gid_index_(gid_index),
      path_mtu_(path_mtu),
      timeout_(timeout),
      seed_(seed) {}

IbverbsWriter::~IbverbsWriter() {
  qp_.reset();
  region_.reset();
  pd_.reset();
}

Outcome<ProbeQp> IbverbsWriter::prepare(std::uint32_t bytes) {
  using Result = Outcome<ProbeQp>;
  auto dev = verbs::Device::open(device_name_, gid_index_);
  if (!dev.ok()) return Result::fail(dev);
  device_ = std::move(*dev);
  auto pd = verbs::ProtectionDomain::create(*device_);
  if (!pd.ok()) return Result::fail(pd);
  pd_ = std::move(*pd);
  buffer_.resize(bytes);
  for (std::size_t i = 0; i < buffer_.size(); i += 8) {
    std::uint64_t v = mix(seed_ + i);
    std::copy_n(reinterpret_cast<const std::uint8_t*>(&v), std::min<std::size_t>(8, buffer_.size() - i),
                buffer_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  auto region = verbs::Region::create(*pd_, buffer_.data(), buffer_.size(), IBV_ACCESS_LOCAL_WRITE);
  if (!region.ok()) return Result::fail(region, device_name_);
  region_ = std::move(*region);
  auto qp = verbs::QueuePair::create(*device_, *pd_, kDepth);
  if (!qp.ok()) return Result::fail(qp);
  qp_ = std::move(*qp);
  psn_ = static_cast<std::uint32_t>(mix(seed_) & 0xffffff);
  ProbeQp local = qp_->local(psn_);
  local.gid = device_->gid();
  return local;
}

Outcome<ProbeTransfer> IbverbsWriter::write(const ProbeAccept& accept) {
  using Result = Outcome<ProbeTransfer>;
  using Clock = verbs::Clock;
  if (!qp_) return Result::fail(EINVAL, "write before prepare");
  const std::string& dev = device_name_;
  if (Status s = qp_->connect(*device_, accept.qp, psn_, path_mtu_, 0); !s.ok()) return Result::fail(s);
  const auto deadline = Clock::now() + timeout_;
  const std::uint32_t length = std::min<std::uint32_t>(accept.length, static_cast<std::uint32_t>(buffer_.size()));
  const std::uint64_t local = region_->address();
  ProbeTransfer out;

  // The round trip: one small signalled WRITE at a time, from post to completion.
  std::vector<double> trips;
  for (int i = 0; i < kRoundTrips; ++i) {
    auto t = Clock::now();
    if (Status s = qp_->post_write(0, local, std::min(kSmall, length), region_->lkey(), accept.address, accept.rkey);
        !s.ok())
      return Result::fail(s, dev);
    auto n = qp_->complete(deadline, kSpin);
    if (!n.ok()) return Result::fail(n, dev + ": round trip " + std::to_string(i + 1));
    trips.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  std::nth_element(trips.begin(), trips.begin() + kRoundTrips / 2, trips.end());
  out.latency_us = trips[kRoundTrips / 2];

  // The timed transfer: the whole buffer, kDepth WRITEs in flight.
  const std::uint32_t chunks = (length + kChunk - 1) / kChunk;
  std::uint32_t posted = 0, completed = 0;
  auto start = Clock::now();
  while (completed < chunks) {
    while (posted < chunks && posted - completed < static_cast<std::uint32_t>(kDepth)) {
      std::uint32_t off = posted * kChunk, len = std::min(kChunk, length - off);
      if (Status s = qp_->post_write(posted, local + off, len, region_->lkey(), accept.address + off, accept.rkey);
          !s.ok())
        return Result::fail(s, dev);
      ++posted;
    }
    auto n = qp_->complete(deadline);
    if (!n.ok())
      return Result::fail(n, dev + ": after " + std::to_string(std::uint64_t{completed} * kChunk) + " of " +
                                 std::to_string(length) + " bytes");
    completed += static_cast<std::uint32_t>(*n);
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out.gbps = seconds > 0 ? static_cast<double>(length) * 8 / seconds / 1e9 : 0;
  return out;
}

}  // namespace railyard
