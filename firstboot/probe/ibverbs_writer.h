// The node's end of the peer probe over libibverbs: a queue pair on the rail's RDMA device,
// a buffer registered for it, a few small signalled WRITEs for the round trip, then the whole
// buffer written into the reference's slice and timed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probe/client.h"
#include "probe/verbs.h"

namespace railyard {

class IbverbsWriter : public ProbeWriter {
 public:
  // `seed` varies the pattern written (the node's rail and time): a slice still holding an
  // earlier peer's bytes never matches by chance.
  // `path_mtu`: the hello's (ProbeTarget::mtu), at most the port's.
  IbverbsWriter(std::string rdma_device, int gid_index, int path_mtu, std::chrono::milliseconds timeout,
                std::uint64_t seed);
  ~IbverbsWriter() override;

  Outcome<ProbeQp> prepare(std::uint32_t bytes) override;
  Outcome<ProbeTransfer> write(const ProbeAccept& accept) override;
  std::span<const std::uint8_t> buffer() const override { return buffer_; }

 private:
  std::string device_name_;
  int gid_index_;
  int path_mtu_;
  std::chrono::milliseconds timeout_;
  std::uint64_t seed_;
  std::uint32_t psn_ = 0;
  std::vector<std::uint8_t> buffer_;
  std::unique_ptr<verbs::Device> device_;
  std::unique_ptr<verbs::ProtectionDomain> pd_;
  std::unique_ptr<verbs::Region> region_;
  std::unique_ptr<verbs::QueuePair> qp_;
};

}  // namespace railyard
