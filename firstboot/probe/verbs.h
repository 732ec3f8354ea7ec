// The libibverbs pieces both ends of the peer probe, and the agent's writes within a node
// (checks/ibverbs_data_path.cc), are built of: an RDMA device's port and
// GID, protection domains, registered memory, and RC queue pairs connected to the other end
// as a ProbeQp (core/probe_protocol.h) describes it. Each owns what it created.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "outcome.h"
#include "probe_protocol.h"

namespace railyard::verbs {

using Clock = std::chrono::steady_clock;

inline constexpr int kPort = 1;

// An open RDMA device, its port 1 ACTIVE, and the GID at `gid_index`.
class Device {
 public:
  static Outcome<std::unique_ptr<Device>> open(const std::string& name, int gid_index);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  ibv_context* context() const { return ctx_; }
  const std::string& name() const { return name_; }
  int gid_index() const { return gid_index_; }
  ProbeGid gid() const;
  // The path MTU in bytes both ends can use: `asked` (256 … 4096), at most the port's active MTU.
  int path_mtu(int asked) const;

 private:
  Device() = default;
  ibv_context* ctx_ = nullptr;
  std::string name_;
  int gid_index_ = 0;
  ibv_port_attr port_{};
  ibv_gid gid_{};
};

class ProtectionDomain {
 public:
  static Outcome<std::unique_ptr<ProtectionDomain>> create(Device& dev);
  ~ProtectionDomain();
  ProtectionDomain(const ProtectionDomain&) = delete;
  ProtectionDomain& operator=(const ProtectionDomain&) = delete;
  ibv_pd* get() const { return pd_; }

 private:
  ProtectionDomain() = default;
  ibv_pd* pd_ = nullptr;
};

// Host memory registered with a protection domain (`access`: IBV_ACCESS_* flags).
class Region {
 public:
  static Outcome<std::unique_ptr<Region>> create(ProtectionDomain& pd, std::uint8_t* bytes, std::size_t length,
                                                 int access);
  // Device memory exported as a dma-buf (a GPU's), `length` bytes from the start of `fd`,
  // addressed by work requests as `iova`.
  static Outcome<std::unique_ptr<Region>> create_dmabuf(ProtectionDomain& pd, int fd, std::uint64_t iova,
                                                        std::size_t length, int access);
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  std::uint32_t lkey() const { return mr_->lkey; }
  std::uint32_t rkey() const { return mr_->rkey; }
  std::uint64_t address() const { return reinterpret_cast<std::uintptr_t>(mr_->addr); }

 private:
  Region() = default;
  ibv_mr* mr_ = nullptr;
};

// An RC queue pair with a completion queue of its own, whose events arrive on a channel of
// its own (waited for with poll(2), bounded by a deadline).
class QueuePair {
 public:
  // `depth`: the work requests in flight at most.
  static Outcome<std::unique_ptr<QueuePair>> create(Device& dev, ProtectionDomain& pd, int depth);
  ~QueuePair();
  QueuePair(const QueuePair&) = delete;
  QueuePair& operator=(const QueuePair&) = delete;

  // This end as the other needs it; `psn` is the first packet sequence number it sends.
  ProbeQp local(std::uint32_t psn) const;
  // INIT, RTR and RTS, connected to `remote` on `dev`'s GID; `access`: what the remote may do
  // to this end's memory (IBV_ACCESS_REMOTE_WRITE on a responder's, nothing on a writer's).
  Status connect(const Device& dev, const ProbeQp& remote, std::uint32_t local_psn, int path_mtu, int access);
  // An RDMA WRITE of [local, local + length) to [remote_address, …) under `rkey`.
  Status post_write(std::uint64_t wr_id, std::uint64_t local, std::uint32_t length, std::uint32_t lkey,
                    std::uint64_t remote_address, std::uint32_t rkey);
  // Completions, at least one, by `deadline`: spins `spin` first (a round trip through one
  // leaf is microseconds, a sleep on the channel as long again), then sleeps on the channel.
  // Fails on a completion with an error, named by its status, or at the deadline.
  Outcome<int> complete(Clock::time_point deadline, std::chrono::microseconds spin = std::chrono::microseconds(0));

 private:
  QueuePair() = default;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  int depth_ = 0;
};

// The IB enumeration's value for a path MTU in bytes (256 … 4096).
ibv_mtu mtu_enum(int bytes);

}  // namespace railyard::verbs
