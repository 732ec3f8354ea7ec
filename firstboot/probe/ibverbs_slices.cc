#include "probe/ibverbs_slices.h"

#include <algorithm>

namespace railyard {

Outcome<std::unique_ptr<IbverbsSlices>> IbverbsSlices::create(const std::vector<SliceRail>& rails, std::size_t slices,
                                                              std::size_t slice_bytes) {
  using Result = Outcome<std::unique_ptr<IbverbsSlices>>;
  std::unique_ptr<IbverbsSlices> s(new IbverbsSlices);
  s->bytes_ = slice_bytes;
  s->memory_.assign(slices, std::vector<std::uint8_t>(slice_bytes, 0));
  s->queue_pairs_.resize(slices);
  for (const auto& rail : rails) {
    auto dev = verbs::Device::open(rail.rdma_device, rail.gid_index);
    if (!dev.ok()) return Result::fail(dev);
    std::vector<Registered> regs;
    for (auto& m : s->memory_) {
      Registered r;
      auto pd = verbs::ProtectionDomain::create(**dev);
      if (!pd.ok()) return Result::fail(pd);
      r.pd = std::move(*pd);
      auto region = verbs::Region::create(*r.pd, m.data(), m.size(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
      if (!region.ok()) return Result::fail(region, rail.rdma_device);
      r.region = std::move(*region);
      regs.push_back(std::move(r));
    }
    s->registered_.push_back(std::move(regs));
    s->devices_.push_back(std::move(*dev));
  }
  return s;
}

IbverbsSlices::~IbverbsSlices() {
  // Queue pairs before the protection domains they live in.
  queue_pairs_.clear();
  registered_.clear();
}

Outcome<ProbeAccept> IbverbsSlices::open(std::size_t rail, std::size_t slice, const ProbeHello& hello) {
  using Result = Outcome<ProbeAccept>;
  if (rail >= devices_.size() || slice >= memory_.size()) return Result::fail(EINVAL, "no such rail or slice");
  verbs::Device& dev = *devices_[rail];
  Registered& reg = registered_[rail][slice];
  auto qp = verbs::QueuePair::create(dev, *reg.pd, 4);
  if (!qp.ok()) return Result::fail(qp);
  std::uint32_t psn = next_psn_;
  next_psn_ = (next_psn_ + 0x10000) & 0xffffff;
  if (Status s = (*qp)->connect(dev, hello.qp, psn, hello.mtu, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
      !s.ok())
    return Result::fail(s);
  ProbeAccept a;
  a.qp = (*qp)->local(psn);
  a.qp.gid = dev.gid();
  a.rkey = reg.region->rkey();
  a.address = reg.region->address();
  a.length = hello.bytes;
  queue_pairs_[slice] = std::move(*qp);
  return a;
}

std::span<const std::uint8_t> IbverbsSlices::contents(std::size_t slice, std::size_t length) {
  const auto& m = memory_.at(slice);
  return std::span<const std::uint8_t>(m).first(std::min(length, m.size()));
}

void IbverbsSlices::close(std::size_t slice) {
  if (slice >= memory_.size()) return;
  queue_pairs_[slice].reset();  // the peer can write no more
  std::fill(memory_[slice].begin(), memory_[slice].end(), 0);
}

}  // namespace railyard
