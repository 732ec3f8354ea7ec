#include "probe/verbs.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace railyard::verbs {

namespace {

// How long a write waits for its acknowledgement before it is sent again: 4.096 µs × 2^18,
// about 1.07 s. On a lossless fabric the timer fires only on a lost packet or an ACK that is
// very late, and the retransmission it causes is what the peer check's counters then show.
// The agent's writes within a node (checks/ibverbs_data_path.cc) take the same: at 2^14
// (67 ms) a loaded lab host (Soft-RoCE under TCG, the writes between rails at 12–23 Mb/s)
// once ended a write with "remote invalid request error", a duplicate the responder could
// not sort out. NCCL's own default for its connections (NCCL_IB_TIMEOUT) is of this order.
constexpr std::uint8_t kAckTimeout = 18;

template <class T>
using Made = Outcome<std::unique_ptr<T>>;

}  // namespace

ibv_mtu mtu_enum(int bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    default: return IBV_MTU_4096;
  }
}

Made<Device> Device::open(const std::string& name, int gid_index) {
  std::unique_ptr<Device> d(new Device);
  d->name_ = name;
  d->gid_index_ = gid_index;
  int n = 0;
  std::unique_ptr<ibv_device*, decltype(&ibv_free_device_list)> list(ibv_get_device_list(&n), ibv_free_device_list);
  if (!list) return Made<Device>::from_errno(errno, name + ": no RDMA device on this host (ibv_get_device_list)");
  for (int i = 0; i < n && !d->ctx_; ++i)
    if (name == ibv_get_device_name(list.get()[i])) d->ctx_ = ibv_open_device(list.get()[i]);
  if (!d->ctx_) return Made<Device>::fail(ENODEV, name + ": no such RDMA device");
  if (ibv_query_port(d->ctx_, kPort, &d->port_)) return Made<Device>::from_errno(errno, name + ": query port");
  if (d->port_.state != IBV_PORT_ACTIVE) return Made<Device>::fail(ENETDOWN, name + ": port 1 is not ACTIVE");
  if (ibv_query_gid(d->ctx_, kPort, gid_index, &d->gid_))
    return Made<Device>::from_errno(errno, name + ": query GID " + std::to_string(gid_index));
  return d;
}

Device::~Device() {
  if (ctx_) ibv_close_device(ctx_);
}

ProbeGid Device::gid() const {
  ProbeGid g{};
  std::memcpy(g.data(), gid_.raw, g.size());
  return g;
}

int Device::path_mtu(int asked) const {
  int active = 256 << (static_cast<int>(port_.active_mtu) - static_cast<int>(IBV_MTU_256));
  return std::min(asked, active);
}

Made<ProtectionDomain> ProtectionDomain::create(Device& dev) {
  std::unique_ptr<ProtectionDomain> p(new ProtectionDomain);
  p->pd_ = ibv_alloc_pd(dev.context());
  if (!p->pd_) return Made<ProtectionDomain>::from_errno(errno, dev.name() + ": allocate a protection domain");
  return p;
}

ProtectionDomain::~ProtectionDomain() {
  if (pd_) ibv_dealloc_pd(pd_);
}

Made<Region> Region::create(ProtectionDomain& pd, std::uint8_t* bytes, std::size_t length, int access) {
  std::unique_ptr<Region> r(new Region);
  r->mr_ = ibv_reg_mr(pd.get(), bytes, length, access);
  if (!r->mr_)
    return Made<Region>::from_errno(errno, "register " + std::to_string(length) + " bytes (the memlock limit?)");
  return r;
}

Made<Region> Region::create_dmabuf(ProtectionDomain& pd, int fd, std::uint64_t iova, std::size_t length, int access) {
  std::unique_ptr<Region> r(new Region);
  r->mr_ = ibv_reg_dmabuf_mr(pd.get(), 0, length, iova, fd, access);
  if (!r->mr_) return Made<Region>::from_errno(errno, "ibv_reg_dmabuf_mr");
  return r;
}

Region::~Region() {
  if (mr_) ibv_dereg_mr(mr_);
}

Made<QueuePair> QueuePair::create(Device& dev, ProtectionDomain& pd, int depth) {
  std::unique_ptr<QueuePair> q(new QueuePair);
  q->depth_ = depth;
  q->channel_ = ibv_create_comp_channel(dev.context());
  q->cq_ = q->channel_ ? ibv_create_cq(dev.context(), depth * 2, nullptr, q->channel_, 0) : nullptr;
  if (!q->cq_) return Made<QueuePair>::from_errno(errno, dev.name() + ": completion channel and queue");
  ibv_qp_init_attr init{};
  init.send_cq = init.recv_cq = q->cq_;
  init.qp_type = IBV_QPT_RC;
  init.cap.max_send_wr = static_cast<std::uint32_t>(depth);
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = init.cap.max_recv_sge = 1;
  q->qp_ = ibv_create_qp(pd.get(), &init);
  if (!q->qp_) return Made<QueuePair>::from_errno(errno, dev.name() + ": create an RC queue pair");
  return q;
}

QueuePair::~QueuePair() {
  if (qp_) ibv_destroy_qp(qp_);
  if (cq_) ibv_destroy_cq(cq_);  // every event taken from the channel was acknowledged at once
  if (channel_) ibv_destroy_comp_channel(channel_);
}

ProbeQp QueuePair::local(std::uint32_t psn) const {
  ProbeQp q;
  q.qpn = qp_->qp_num;
  q.psn = psn & 0xffffff;
  return q;
}

Status QueuePair::connect(const Device& dev, const ProbeQp& remote, std::uint32_t local_psn, int path_mtu, int access) {
  const std::string& name = dev.name();
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = kPort;
  a.qp_access_flags = static_cast<unsigned>(access);
  if (ibv_modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
    return Status::from_errno(errno, name + ": queue pair to INIT");
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = mtu_enum(dev.path_mtu(path_mtu));
  a.dest_qp_num = remote.qpn;
  a.rq_psn = remote.psn;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.is_global = 1;
  std::memcpy(a.ah_attr.grh.dgid.raw, remote.gid.data(), remote.gid.size());
  a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(dev.gid_index());
  a.ah_attr.grh.hop_limit = 64;
  a.ah_attr.port_num = kPort;
  if (ibv_modify_qp(qp_, &a,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    return Status::from_errno(errno, name + ": queue pair to RTR (the peer's GID unreachable?)");
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = kAckTimeout;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = local_psn & 0xffffff;
  a.max_rd_atomic = 1;
  if (ibv_modify_qp(qp_, &a,
                    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC))
    return Status::from_errno(errno, name + ": queue pair to RTS");
  return success();
}

Status QueuePair::post_write(std::uint64_t wr_id, std::uint64_t local, std::uint32_t length, std::uint32_t lkey,
                             std::uint64_t remote_address, std::uint32_t rkey) {
  ibv_sge sge{local, length, lkey};
  ibv_send_wr wr{}, *bad = nullptr;
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = remote_address;
  wr.wr.rdma.rkey = rkey;
  if (ibv_post_send(qp_, &wr, &bad)) return Status::from_errno(errno, "post an RDMA WRITE");
  return success();
}

Outcome<int> QueuePair::complete(Clock::time_point deadline, std::chrono::microseconds spin) {
  using Result = Outcome<int>;
  std::vector<ibv_wc> wc(static_cast<std::size_t>(depth_));
  auto judge = [&](int n) -> Result {
    for (int i = 0; i < n; ++i)
      if (wc[static_cast<std::size_t>(i)].status != IBV_WC_SUCCESS)
        return Result::fail(
            EIO, std::string("RDMA WRITE completed with ") + ibv_wc_status_str(wc[static_cast<std::size_t>(i)].status));
    return n;
  };
  const auto spin_until = Clock::now() + spin;
  for (;;) {
    int n = ibv_poll_cq(cq_, depth_, wc.data());
    if (n < 0) return Result::fail(EIO, "poll the completion queue");
    if (n > 0) return judge(n);
    if (Clock::now() < spin_until) continue;
    if (ibv_req_notify_cq(cq_, 0)) return Result::from_errno(errno, "arm the completion queue");
    n = ibv_poll_cq(cq_, depth_, wc.data());  // what completed before the arming raises no event
    if (n < 0) return Result::fail(EIO, "poll the completion queue");
    if (n > 0) return judge(n);
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Result::fail(ETIMEDOUT, "no completion in time (the lossless fabric stalled?)");
    pollfd p{channel_->fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno != EINTR) return Result::from_errno(errno, "wait for the completion queue's event");
    if (r <= 0) continue;
    ibv_cq* cq = nullptr;
    void* cq_context = nullptr;
    if (ibv_get_cq_event(channel_, &cq, &cq_context))
      return Result::from_errno(errno, "read the completion queue's event");
    ibv_ack_cq_events(cq, 1);
  }
}

}  // namespace railyard::verbs
