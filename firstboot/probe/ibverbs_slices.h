// The responder's slices over libibverbs: on every rail's RDMA device, each slice of host
// memory registered once at start in a protection domain of its own, so that a peer's rkey
// reaches its own slice and nothing else, not even another peer's; a queue pair per peer,
// created when it says hello and destroyed when it is done.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probe/responder.h"
#include "probe/verbs.h"

namespace railyard {

struct SliceRail {
  std::string rdma_device;  // "mlx5_0", "rxe0"
  int gid_index = 0;        // the rail address's RoCE v2 GID
};

class IbverbsSlices : public ProbeSlices {
 public:
  // `rails` in the responder's order (ResponderRail's position). Fails when a device cannot
  // be opened or the memory registered: nothing is served then.
  static Outcome<std::unique_ptr<IbverbsSlices>> create(const std::vector<SliceRail>& rails, std::size_t slices,
                                                        std::size_t slice_bytes);
  ~IbverbsSlices() override;

  std::size_t count() const override { return memory_.size(); }
  std::size_t slice_bytes() const override { return bytes_; }
  Outcome<ProbeAccept> open(std::size_t rail, std::size_t slice, const ProbeHello& hello) override;
  std::span<const std::uint8_t> contents(std::size_t slice, std::size_t length) override;
  void close(std::size_t slice) override;

 private:
  struct Registered {  // one slice on one rail's device
    std::unique_ptr<verbs::ProtectionDomain> pd;
    std::unique_ptr<verbs::Region> region;
  };
  IbverbsSlices() = default;

  std::size_t bytes_ = 0;
  std::vector<std::unique_ptr<verbs::Device>> devices_;         // per rail
  std::vector<std::vector<std::uint8_t>> memory_;               // per slice
  std::vector<std::vector<Registered>> registered_;             // [rail][slice]
  std::vector<std::unique_ptr<verbs::QueuePair>> queue_pairs_;  // per slice, while a peer has it
  std::uint32_t next_psn_ = 0x1000;
};

}  // namespace railyard
